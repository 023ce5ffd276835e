package io.providermirror.cache;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lease objects in memory, for the lease logic alone (the real store is exercised against S3Proxy): conditions
 * honoured as S3 does, or ignored as S3Proxy 2.6.0 and its old filesystem backend do. {@link #afterRead} runs
 * after every read, so a test can hold two instances between their read and their write.
 */
final class InMemoryLeaseObjects implements LeaseObjects {

    private final boolean honoursConditions;
    private final ConcurrentHashMap<String, Versioned> objects = new ConcurrentHashMap<>();
    private final AtomicLong etags = new AtomicLong();
    volatile Runnable afterRead = () -> {};

    InMemoryLeaseObjects(boolean honoursConditions) {
        this.honoursConditions = honoursConditions;
    }

    @Override
    public Optional<String> createIfAbsent(String name, byte[] content) {
        Versioned next = new Versioned(content.clone(), "\"" + etags.incrementAndGet() + "\"");
        if (!honoursConditions) {
            objects.put(name, next);
            return Optional.of(next.etag());
        }
        return objects.putIfAbsent(name, next) == null ? Optional.of(next.etag()) : Optional.empty();
    }

    @Override
    public Optional<Versioned> read(String name) {
        Optional<Versioned> found = Optional.ofNullable(objects.get(name));
        afterRead.run();
        return found;
    }

    @Override
    public Optional<String> replaceIfMatch(String name, byte[] content, String etag) {
        Versioned next = new Versioned(content.clone(), "\"" + etags.incrementAndGet() + "\"");
        if (!honoursConditions) {
            objects.put(name, next);
            return Optional.of(next.etag());
        }
        boolean[] replaced = new boolean[1];
        objects.computeIfPresent(name, (n, current) -> {
            if (current.etag().equals(etag)) {
                replaced[0] = true;
                return next;
            }
            return current;
        });
        return replaced[0] ? Optional.of(next.etag()) : Optional.empty();
    }

    @Override
    public void delete(String name) {
        objects.remove(name);
    }

    boolean exists(String name) {
        return objects.containsKey(name);
    }
}
