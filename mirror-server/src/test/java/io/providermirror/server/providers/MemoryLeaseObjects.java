package io.providermirror.server.providers;

import io.providermirror.cache.LeaseObjects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Lease objects in memory with S3's conditions, for the core's lease logic without a store (S3Proxy ITs do that). */
final class MemoryLeaseObjects implements LeaseObjects {

    private final ConcurrentHashMap<String, Versioned> objects = new ConcurrentHashMap<>();
    private final AtomicLong etags = new AtomicLong();

    @Override
    public Optional<String> createIfAbsent(String name, byte[] content) {
        Versioned next = new Versioned(content.clone(), Long.toString(etags.incrementAndGet()));
        return objects.putIfAbsent(name, next) == null ? Optional.of(next.etag()) : Optional.empty();
    }

    @Override
    public Optional<Versioned> read(String name) {
        return Optional.ofNullable(objects.get(name));
    }

    @Override
    public Optional<String> replaceIfMatch(String name, byte[] content, String etag) {
        Versioned next = new Versioned(content.clone(), Long.toString(etags.incrementAndGet()));
        boolean[] replaced = new boolean[1];
        objects.computeIfPresent(name, (n, current) -> {
            replaced[0] = current.etag().equals(etag);
            return replaced[0] ? next : current;
        });
        return replaced[0] ? Optional.of(next.etag()) : Optional.empty();
    }

    @Override
    public void delete(String name) {
        objects.remove(name);
    }

    int size() {
        return objects.size();
    }
}
