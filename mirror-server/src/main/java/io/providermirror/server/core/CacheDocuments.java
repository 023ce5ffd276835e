package io.providermirror.server.core;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginJson;
import io.providermirror.upstream.RegistryService;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The cache's metadata documents and their formats, in one place, on top of a {@link DocumentStore}: each
 * provider's version list ({@code versions.json}, the registry's form), each version's release evidence
 * ({@code release.json}), the {@code h1:} hashes of its archives ({@code hashes.json}), and each origin's
 * discovered service base URLs ({@code discovery.json}). Where each lives is {@link CacheLayout}'s business. A document
 * that cannot be read as its format fails with an {@link IOException} that names it; callers decide whether to
 * fetch it again, ignore it or refuse.
 */
public final class CacheDocuments {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A {@link ModulePin} as stored, its time as ISO-8601 text. */
    private record PinDocument(
            String kind,
            String sha256,
            long size,
            String commitId,
            String archiveType,
            String subdirectory,
            String source,
            String pinnedAt,
            boolean accepting) {
        static PinDocument of(ModulePin pin) {
            return new PinDocument(
                    pin.kind(),
                    pin.sha256(),
                    pin.size(),
                    pin.commitId(),
                    pin.archiveType(),
                    pin.subdirectory(),
                    pin.source(),
                    pin.pinnedAt().toString(),
                    pin.accepting());
        }

        ModulePin pin() {
            if (kind == null || sha256 == null || archiveType == null || pinnedAt == null) {
                throw new IllegalArgumentException("kind, sha256, archiveType or pinnedAt is missing");
            }
            return new ModulePin(
                    kind,
                    sha256,
                    size,
                    commitId,
                    archiveType,
                    subdirectory,
                    source,
                    Instant.parse(pinnedAt),
                    accepting);
        }
    }

    private static final TypeReference<Map<String, String>> TEXT_BY_KEY = new TypeReference<>() {};

    /** A document's content as read, with when it was stored. */
    public record Dated<T>(T value, Instant storedAt) {}

    /**
     * A document that was read but does not parse as its format; unlike other {@link IOException}s (the store
     * failing), one the caller may replace by fetching it again. The cause is the parser's complaint.
     */
    public static final class Unreadable extends IOException {
        private static final long serialVersionUID = 1L;

        Unreadable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final DocumentStore store;

    public CacheDocuments(DocumentStore store) {
        this.store = store;
    }

    /** The version list of {@code address}, if the cache holds one. */
    public Optional<Dated<VersionList>> versionList(ProviderAddress address) throws IOException {
        Optional<StoredDocument> stored = store.read(CacheLayout.versions(address));
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Dated<>(
                    VersionList.parse(address, stored.get().content(), "the cache"),
                    stored.get().storedAt()));
        } catch (OriginException e) {
            throw new Unreadable("the cached version list of " + address + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** Stores the version list of {@code address} as its origin sent it (the registry's form). */
    public void writeVersionList(ProviderAddress address, byte[] registryForm) throws IOException {
        store.write(CacheLayout.versions(address), registryForm);
    }

    /** When the mirror first saw each version of {@code address}; empty when it never stored a list of it. */
    public Optional<VersionSightings> sightings(ProviderAddress address) throws IOException {
        return sightings(CacheLayout.sightings(address), address.toString());
    }

    /**
     * Stores {@code sightings} merged with what the store holds now (another instance of a fleet may have written
     * since they were read): the earliest time per version wins ({@link VersionSightings#merge}). Returns what was
     * stored.
     */
    public VersionSightings writeSightings(ProviderAddress address, VersionSightings sightings) throws IOException {
        return writeSightings(CacheLayout.sightings(address), address.toString(), sightings);
    }

    /** When the mirror first saw each version of module {@code address}; empty when it never stored a list of it. */
    public Optional<VersionSightings> sightings(ModuleAddress address) throws IOException {
        return sightings(CacheLayout.moduleSightings(address), "module " + address);
    }

    /** As {@link #writeSightings(ProviderAddress, VersionSightings)}, for a module. */
    public VersionSightings writeSightings(ModuleAddress address, VersionSightings sightings) throws IOException {
        return writeSightings(CacheLayout.moduleSightings(address), "module " + address, sightings);
    }

    private VersionSightings writeSightings(
            io.providermirror.cache.CacheKey key, String what, VersionSightings sightings) throws IOException {
        Optional<VersionSightings> stored;
        try {
            stored = sightings(key, what);
        } catch (Unreadable e) {
            stored = Optional.empty(); // replaced by what this instance knows
        }
        VersionSightings merged = stored.map(sightings::merge).orElse(sightings);
        store.write(key, merged.encode());
        return merged;
    }

    private Optional<VersionSightings> sightings(io.providermirror.cache.CacheKey key, String what) throws IOException {
        Optional<StoredDocument> stored = store.read(key);
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(VersionSightings.decode(stored.get().content()));
        } catch (IOException | RuntimeException e) {
            throw new Unreadable("the sightings of " + what + " are unreadable: " + e.getMessage(), e);
        }
    }

    /** Stores {@code list} as the version list of its provider. */
    public void writeVersionList(VersionList list) throws IOException {
        store.write(CacheLayout.versions(list.address()), list.encode());
    }

    /** The release evidence of {@code version}, if the cache holds it; it still has to be verified. */
    public Optional<Dated<ReleaseEvidence>> releaseEvidence(ProviderAddress address, ProviderVersion version)
            throws IOException {
        Optional<StoredDocument> stored = store.read(CacheLayout.release(address, version));
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Dated<>(
                    OriginJson.readValue(stored.get().content(), ReleaseEvidence.class),
                    stored.get().storedAt()));
        } catch (IOException | IllegalArgumentException e) {
            throw new Unreadable(
                    "the cached release of " + address + " " + version + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** Stores the evidence a release was verified with, so it is verified again when read back. */
    public void writeReleaseEvidence(ProviderAddress address, ProviderVersion version, ReleaseEvidence evidence)
            throws IOException {
        store.write(CacheLayout.release(address, version), JSON.writeValueAsBytes(evidence));
    }

    /**
     * Formats {@code evidence} and {@code hashes} as {@link #writeReleaseEvidence} and {@link #writePackageHashes}
     * store them, and reads both back as {@link #releaseEvidence} and {@link #packageHashes} do, storing nothing. The
     * warm-up after start-up calls it with a sample release, so that the JSON mapper has built its writers and readers
     * for these documents (and their classes are loaded) before the first cold provider's request needs them.
     *
     * @return the release document as {@link #writeReleaseEvidence} would store it
     * @throws IOException when a document does not read back as written
     */
    public static byte[] warmUp(ReleaseEvidence evidence, Map<Platform, String> hashes) throws IOException {
        byte[] release = JSON.writeValueAsBytes(evidence);
        OriginJson.readValue(release, ReleaseEvidence.class);
        Map<String, String> byName = new TreeMap<>();
        hashes.forEach((platform, h1) -> byName.put(platform.toString(), h1));
        OriginJson.readValue(JSON.writeValueAsBytes(byName), TEXT_BY_KEY);
        return release;
    }

    /** The {@code h1:} hashes known for the archives of {@code version}, by platform; empty when none are. */
    public Map<Platform, String> packageHashes(ProviderAddress address, ProviderVersion version) throws IOException {
        Optional<StoredDocument> stored = store.read(CacheLayout.packageHashes(address, version));
        if (stored.isEmpty()) {
            return Map.of();
        }
        try {
            Map<Platform, String> hashes = new TreeMap<>();
            OriginJson.readValue(stored.get().content(), TEXT_BY_KEY)
                    .forEach((platform, h1) -> hashes.put(Platform.parse(platform), h1));
            return hashes;
        } catch (IOException | IllegalArgumentException e) {
            throw new Unreadable(
                    "the cached h1 hashes of " + address + " " + version + " are unreadable: " + e.getMessage(), e);
        }
    }

    /** Stores the {@code h1:} hashes known for the archives of {@code version}. */
    public void writePackageHashes(ProviderAddress address, ProviderVersion version, Map<Platform, String> hashes)
            throws IOException {
        Map<String, String> byName = new TreeMap<>();
        hashes.forEach((platform, h1) -> byName.put(platform.toString(), h1));
        store.write(CacheLayout.packageHashes(address, version), JSON.writeValueAsBytes(byName));
    }

    /**
     * The base URLs last discovered for {@code hostname}, by service; empty when none are known. A document written
     * before modules were discovered holds the {@code providers.v1} URL alone, as plain text.
     */
    public Map<RegistryService, URI> discovery(String hostname) throws IOException {
        Optional<StoredDocument> stored = store.read(CacheLayout.discovery(hostname));
        if (stored.isEmpty()) {
            return Map.of();
        }
        byte[] content = stored.get().content();
        try {
            String text = new String(content, StandardCharsets.UTF_8).strip();
            if (!text.startsWith("{")) {
                return Map.of(RegistryService.PROVIDERS, URI.create(text));
            }
            Map<String, String> byId = OriginJson.readValue(content, TEXT_BY_KEY);
            Map<RegistryService, URI> bases = new EnumMap<>(RegistryService.class);
            for (RegistryService service : RegistryService.values()) {
                String base = byId.get(service.id());
                if (base != null) {
                    bases.put(service, URI.create(base));
                }
            }
            return bases;
        } catch (IOException | IllegalArgumentException e) {
            throw new Unreadable("the stored discovery result of " + hostname + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** Stores the base URLs discovered for {@code hostname}, by service id ({@code {"providers.v1":"https://..."}}). */
    public void writeDiscovery(String hostname, Map<RegistryService, URI> bases) throws IOException {
        Map<String, String> byId = new TreeMap<>();
        bases.forEach((service, base) -> byId.put(service.id(), base.toString()));
        store.write(CacheLayout.discovery(hostname), JSON.writeValueAsBytes(byId));
    }

    /** The version list of module {@code address} as its origin sent it, if the cache holds one. */
    public Optional<Dated<byte[]>> moduleVersions(ModuleAddress address) throws IOException {
        return store.read(CacheLayout.moduleVersions(address))
                .map(stored -> new Dated<>(stored.content(), stored.storedAt()));
    }

    /** Stores the version list of module {@code address} as its origin sent it. */
    public void writeModuleVersions(ModuleAddress address, byte[] registryForm) throws IOException {
        store.write(CacheLayout.moduleVersions(address), registryForm);
    }

    /**
     * The versions the cached version list of module {@code address} names, in its order, if the cache holds one.
     *
     * @throws Unreadable when the list does not parse
     */
    public Optional<Dated<List<ProviderVersion>>> moduleVersionList(ModuleAddress address) throws IOException {
        Optional<Dated<byte[]>> stored = moduleVersions(address);
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Dated<>(
                    ModuleRegistryClient.parseVersions(
                                    stored.get().value(), "the cached version list of module " + address)
                            .versions(),
                    stored.get().storedAt()));
        } catch (OriginException e) {
            throw new Unreadable(e.getMessage(), e);
        }
    }

    /** Stores {@code versions}, in their order, as the version list of module {@code address}. */
    public void writeModuleVersionList(ModuleAddress address, List<ProviderVersion> versions) throws IOException {
        writeModuleVersions(address, ModuleRegistryClient.versionsDocument(versions));
    }

    /** The pin of a module version, if it was ever fetched. */
    public Optional<ModulePin> modulePin(ModuleAddress address, ProviderVersion version) throws IOException {
        Optional<StoredDocument> stored = store.read(CacheLayout.modulePin(address, version));
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(OriginJson.readValue(stored.get().content(), PinDocument.class)
                    .pin());
        } catch (IOException | IllegalArgumentException | java.time.DateTimeException e) {
            // Not Unreadable: a pin is never dropped and fetched again, since that would take whatever the source
            // holds now.
            throw new IOException(
                    "the pin of module " + address + " " + version + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** Stores the pin of a module version. */
    public void writeModulePin(ModuleAddress address, ProviderVersion version, ModulePin pin) throws IOException {
        store.write(CacheLayout.modulePin(address, version), JSON.writeValueAsBytes(PinDocument.of(pin)));
    }
}
