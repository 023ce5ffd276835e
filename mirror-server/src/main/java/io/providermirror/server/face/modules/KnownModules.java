package io.providermirror.server.face.modules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the mirror learnt of modules from the full module registry API, kept in the cache so it can answer without
 * the origin: per host, each module's owner, description and verified mark and each version with its
 * {@code published_at} ({@code catalog.json}); per version, its details ({@code details.json}). Both are written in
 * the forms {@link ModuleApiDocuments} reads, and read back by it as strictly as an origin's answer. Blocking.
 * Bounded: at most {@link #MAX_MODULES} modules per host and {@link #MAX_VERSIONS} versions per module are kept.
 */
final class KnownModules {

    private static final Logger LOG = LoggerFactory.getLogger(KnownModules.class);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    static final int MAX_MODULES = 10_000;
    static final int MAX_VERSIONS = 1_000;

    /** A module as the mirror knows it: the latest facts seen, and every version seen with when it was published. */
    record Known(
            ModuleAddress address,
            Optional<String> owner,
            Optional<String> description,
            Optional<Boolean> verified,
            SortedMap<ProviderVersion, Optional<Instant>> versions) {
        Known {
            versions = Collections.unmodifiableSortedMap(new TreeMap<>(versions));
        }

        /** The facts of {@code version} as far as the mirror knows them. */
        ModuleFacts facts(ProviderVersion version) {
            return new ModuleFacts(
                    address,
                    version,
                    owner,
                    description,
                    versions.getOrDefault(version, Optional.empty()),
                    OptionalLong.empty(),
                    verified);
        }
    }

    private final DocumentStore store;
    /** Each host's modules as last read or written, loaded on first use. */
    private final Cache<String, Map<ModuleAddress, Known>> hosts =
            Caffeine.newBuilder().maximumSize(1_000).build();

    KnownModules(DocumentStore store) {
        this.store = store;
    }

    /** Every module of {@code hostname} the mirror learnt of. */
    List<Known> of(String hostname) {
        return List.copyOf(loaded(hostname).values());
    }

    /** What the mirror knows of {@code address}, if anything. */
    Optional<Known> of(ModuleAddress address) {
        return Optional.ofNullable(loaded(address.hostname()).get(address));
    }

    /** When {@code version} of {@code address} was published, if an origin ever said. */
    Optional<Instant> publishedAt(ModuleAddress address, ProviderVersion version) {
        return of(address).flatMap(known -> known.versions().getOrDefault(version, Optional.empty()));
    }

    /** Takes in what an answer of {@code hostname}'s registry said; the document is written when it changed. */
    void remember(String hostname, List<ModuleFacts> seen) {
        if (seen.isEmpty()) {
            return;
        }
        synchronized (this) {
            // Read again before writing: another instance sharing the store may have added modules since.
            Map<ModuleAddress, Known> modules = read(hostname);
            boolean changed = false;
            for (ModuleFacts facts : seen) {
                Known before = modules.get(facts.address());
                if (before == null && modules.size() >= MAX_MODULES) {
                    continue;
                }
                Known after = merged(before, facts);
                if (!after.equals(before)) {
                    modules.put(facts.address(), after);
                    changed = true;
                }
            }
            if (changed) {
                try {
                    store.write(CacheLayout.moduleCatalog(hostname), encode(modules.values()));
                } catch (IOException e) {
                    LOG.warn("cannot store what the mirror knows of the modules of {}: {}", hostname, e.getMessage());
                }
            }
            hosts.put(hostname, modules);
        }
    }

    /** Keeps a version's details (without the download count) for answers without the origin. */
    void rememberDetails(ModuleApiDocuments.Details details) {
        ObjectNode kept = ModuleApiDocuments.fields(details.facts().kept());
        kept.setAll(details.parts());
        try {
            store.write(
                    CacheLayout.moduleDetails(
                            details.facts().address(), details.facts().version()),
                    kept.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            LOG.warn(
                    "cannot store the details of module {}: {}", details.facts().address(), e.getMessage());
        }
    }

    /** The details of a version the mirror kept, if it did. */
    Optional<ModuleApiDocuments.Details> details(ModuleAddress address, ProviderVersion version) {
        try {
            Optional<StoredDocument> stored = store.read(CacheLayout.moduleDetails(address, version));
            if (stored.isEmpty()) {
                return Optional.empty();
            }
            return ModuleApiDocuments.details(
                            address.hostname(),
                            OriginJson.read(stored.get().content(), "the cached details of module " + address))
                    .filter(details -> details.facts().address().equals(address));
        } catch (IOException | OriginException e) {
            LOG.warn("cannot read the cached details of module {} {}: {}", address, version, e.getMessage());
            return Optional.empty();
        }
    }

    private Map<ModuleAddress, Known> loaded(String hostname) {
        return hosts.get(hostname, this::read);
    }

    private static Known merged(Known before, ModuleFacts facts) {
        if (before == null) {
            return new Known(
                    facts.address(),
                    facts.owner(),
                    facts.description(),
                    facts.verified(),
                    new TreeMap<>(Map.of(facts.version(), facts.publishedAt())));
        }
        TreeMap<ProviderVersion, Optional<Instant>> versions = new TreeMap<>(before.versions());
        Optional<Instant> published = versions.getOrDefault(facts.version(), Optional.empty());
        if (versions.containsKey(facts.version()) || versions.size() < MAX_VERSIONS) {
            versions.put(facts.version(), facts.publishedAt().or(() -> published));
        }
        return new Known(
                before.address(),
                facts.owner().or(before::owner),
                facts.description().or(before::description),
                facts.verified().or(before::verified),
                versions);
    }

    private Map<ModuleAddress, Known> read(String hostname) {
        Map<ModuleAddress, Known> modules = new LinkedHashMap<>();
        try {
            Optional<StoredDocument> stored = store.read(CacheLayout.moduleCatalog(hostname));
            if (stored.isEmpty()) {
                return new ConcurrentHashMap<>(modules);
            }
            JsonNode root = OriginJson.read(stored.get().content(), "the cached catalog of modules of " + hostname);
            for (JsonNode item : OriginJson.member(root, "modules")) {
                Optional<ModuleFacts> facts = ModuleApiDocuments.facts(hostname, item);
                if (facts.isEmpty()) {
                    continue;
                }
                TreeMap<ProviderVersion, Optional<Instant>> versions = new TreeMap<>();
                for (JsonNode entry : OriginJson.member(item, "versions")) {
                    JsonNode version = OriginJson.member(entry, "version");
                    JsonNode published = OriginJson.member(entry, "published_at");
                    if (version.isTextual()) {
                        ProviderVersion.parse(version.textValue())
                                .ifPresent(parsed -> versions.put(
                                        parsed,
                                        published.isTextual()
                                                ? ModuleApiDocuments.instant(published.textValue())
                                                : Optional.empty()));
                    }
                }
                ModuleFacts known = facts.get();
                modules.put(
                        known.address(),
                        new Known(known.address(), known.owner(), known.description(), known.verified(), versions));
            }
        } catch (IOException | OriginException e) {
            LOG.warn("cannot read what the mirror knows of the modules of {}: {}", hostname, e.getMessage());
        }
        return new ConcurrentHashMap<>(modules);
    }

    /** The catalog document: each module's facts (its newest version as {@code version}) and its versions. */
    private static byte[] encode(Iterable<Known> modules) {
        ObjectNode root = NODES.objectNode();
        ArrayNode list = root.putArray("modules");
        for (Known known : modules) {
            if (known.versions().isEmpty()) {
                continue;
            }
            ObjectNode item =
                    ModuleApiDocuments.fields(known.facts(known.versions().lastKey()));
            ArrayNode versions = item.putArray("versions");
            known.versions().forEach((version, published) -> {
                ObjectNode entry = versions.addObject().put("version", version.toString());
                published.ifPresent(at -> entry.put("published_at", at.toString()));
            });
            list.add(item);
        }
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }
}
