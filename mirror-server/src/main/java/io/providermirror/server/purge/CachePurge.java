package io.providermirror.server.purge;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.face.providers.ProviderRegistryFace;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.tlog.Decision;
import io.providermirror.server.tlog.DecisionLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes a provider (every version), a provider version (or some of its platforms' archives) or a module version
 * from the cache, whichever store holds it: the archives, the verified release document and the {@code h1:} hashes
 * of a version, and for a whole provider its version list; for a module version its archive, its details and its
 * pin (the pin goes too, recorded as released: the next fetch pins what the source then holds). When the mirror first
 * saw each version ({@code sightings.json}) stays: a purge does not restart a release-age quarantine. The running
 * mirror forgets what memory holds of it, so the next request reads the cache, else fetches it again from its origin
 * (unless the policy refuses it). Each purge is logged and recorded in the transparency log. Blocking.
 */
public final class CachePurge {

    private static final Logger LOG = LoggerFactory.getLogger(CachePurge.class);

    private final BlobStore blobs;
    private final DocumentStore documents;
    private final CacheDocuments cacheDocuments;
    private final ProviderMirror providers;
    private final ProviderRegistryFace registry;
    private final ModuleMirror modules;
    private final DecisionLog decisions;
    private final PurgeRecord record;
    /** Names this process in the purges it records, so that it does not follow its own. */
    private final String instance = java.util.UUID.randomUUID().toString();

    private final java.time.Clock clock;

    public CachePurge(
            BlobStore blobs,
            DocumentStore documents,
            ProviderMirror providers,
            ProviderRegistryFace registry,
            ModuleMirror modules,
            DecisionLog decisions,
            java.time.Clock clock) {
        this.clock = clock;
        this.record = new PurgeRecord(documents);
        this.blobs = blobs;
        this.documents = documents;
        this.cacheDocuments = new CacheDocuments(documents);
        this.providers = providers;
        this.registry = registry;
        this.modules = modules;
        this.decisions = decisions;
    }

    /**
     * Purges {@code address}: every version when {@code version} is empty; else that version, or only the archives of
     * {@code platforms} when some are named (the version's release stays, so its other platforms are still served).
     */
    public PurgeReport provider(
            ProviderAddress address,
            Optional<ProviderVersion> version,
            Set<Platform> platforms,
            boolean dryRun,
            String reason)
            throws IOException {
        List<String> prefix = List.of(address.hostname(), address.namespace(), address.type());
        List<BlobSummary> listed = blobs.list();
        Set<ProviderVersion> versions = new TreeSet<>();
        if (version.isPresent()) {
            versions.add(version.get());
        } else {
            cacheDocuments
                    .versionList(address)
                    .ifPresent(list -> versions.addAll(list.value().versions().keySet()));
            for (BlobSummary blob : listed) {
                if (CacheLayout.under(blob.key(), prefix)
                        && blob.key().segments().size() == prefix.size() + 2) {
                    ProviderVersion.parse(blob.key().segments().get(prefix.size()))
                            .ifPresent(versions::add);
                }
            }
        }
        String subject = address
                + version.map(v -> " " + v).orElse("")
                + (platforms.isEmpty()
                        ? ""
                        : " ("
                                + platforms.stream()
                                        .map(Platform::toString)
                                        .sorted()
                                        .collect(Collectors.joining(", ")) + ")");
        List<CacheKey> archives = new ArrayList<>();
        long bytes = 0;
        for (BlobSummary blob : listed) {
            boolean matches = versions.stream()
                    .anyMatch(v -> platforms.isEmpty()
                            ? CacheLayout.under(
                                    blob.key(),
                                    CacheLayout.release(address, v).segments().subList(0, 4))
                            : platforms.stream().anyMatch(p -> blob.key().equals(CacheLayout.archive(address, v, p))));
            if (matches) {
                archives.add(blob.key());
                bytes += blob.size();
            }
        }
        List<CacheKey> docs = new ArrayList<>();
        if (platforms.isEmpty()) {
            for (ProviderVersion v : versions) {
                docs.add(CacheLayout.release(address, v));
                docs.add(CacheLayout.packageHashes(address, v));
            }
            if (version.isEmpty()) {
                docs.add(CacheLayout.versions(address));
            }
        }
        docs.removeIf(key -> !exists(key));
        PurgeReport report = remove(subject, archives, docs, bytes, dryRun, reason);
        if (!dryRun) {
            forgetProvider(address, version);
            if (!report.empty()) {
                remember(
                        address.toString(),
                        null,
                        version.map(ProviderVersion::canonical).orElse(null),
                        platforms.stream().map(Platform::toString).sorted().toList());
            }
        }
        return report;
    }

    private void forgetProvider(ProviderAddress address, Optional<ProviderVersion> version) {
        if (version.isPresent()) {
            providers.forget(address, version.get());
            registry.forget(address, version.get());
        } else {
            providers.forget(address);
            registry.forget(address);
        }
    }

    /** Purges a module version: its archive, its details and its pin (recorded as released). */
    public PurgeReport module(ModuleAddress address, ProviderVersion version, boolean dryRun, String reason)
            throws IOException {
        Optional<ModulePin> pin = cacheDocuments.modulePin(address, version);
        List<String> prefix = CacheLayout.modulePin(address, version).segments();
        prefix = prefix.subList(0, prefix.size() - 1);
        List<CacheKey> archives = new ArrayList<>();
        long bytes = 0;
        for (BlobSummary blob : blobs.list()) {
            if (CacheLayout.under(blob.key(), prefix)) {
                archives.add(blob.key());
                bytes += blob.size();
            }
        }
        List<CacheKey> docs = new ArrayList<>(
                List.of(CacheLayout.moduleDetails(address, version), CacheLayout.modulePin(address, version)));
        docs.removeIf(key -> !exists(key));
        String subject = "module " + address + " " + version.withoutBuildMetadata();
        PurgeReport report = remove(subject, archives, docs, bytes, dryRun, reason);
        if (!dryRun && pin.isPresent()) {
            decisions.record(Decision.modulePinReleased(
                    address.toString(),
                    version.withoutBuildMetadata().canonical(),
                    pin.get().identity()));
        }
        if (!dryRun) {
            modules.forget(address, version);
            if (!report.empty()) {
                remember(
                        null, address.toString(), version.withoutBuildMetadata().canonical(), List.of());
            }
        }
        return report;
    }

    /**
     * Releases a module version's pin so its next fetch pins what the source holds then ({@code modules accept}, on
     * the command line or through the operator API): the pin is marked as being accepted and the cached archive
     * dropped ({@link ModuleMirror#acceptNewContent}), the release is recorded in the decision log, and, as a purge
     * is, in the record the other instances sharing the cache follow, so that they drop their local copy of the old
     * archive and forget a refusal of the new content they remember.
     *
     * @throws IllegalArgumentException when the version was never pinned
     */
    public ModulePin acceptModule(ModuleAddress address, ProviderVersion version) throws IOException {
        ModulePin pin = modules.acceptNewContent(address, version);
        String canonical = version.withoutBuildMetadata().canonical();
        remember(null, address.toString(), canonical, List.of());
        decisions.record(Decision.modulePinReleased(address.toString(), canonical, pin.identity()));
        return pin;
    }

    /** The record of recent purges that instances sharing the cache follow. */
    PurgeRecord record() {
        return record;
    }

    private void remember(String provider, String module, String version, List<String> platforms) {
        remember(List.of(entry(provider, module, version, platforms)));
    }

    private PurgeRecord.Entry entry(String provider, String module, String version, List<String> platforms) {
        return new PurgeRecord.Entry(
                java.util.UUID.randomUUID().toString(),
                instance,
                clock.instant().toString(),
                provider,
                module,
                version,
                platforms);
    }

    private void remember(List<PurgeRecord.Entry> entries) {
        try {
            record.append(entries);
        } catch (IOException e) {
            LOG.warn("cannot record the purge for the other instances sharing the cache: {}", e.getMessage());
        }
    }

    /**
     * Drops what this instance holds of a purge another instance made (its local copies, what memory holds); the
     * store of record was purged by that instance.
     */
    void follow(PurgeRecord.Entry entry) throws IOException {
        if (entry.instance().equals(instance)) {
            return;
        }
        Optional<ProviderVersion> version = Optional.ofNullable(entry.version()).flatMap(ProviderVersion::parse);
        if (entry.provider() != null) {
            ProviderAddress address = ProviderAddress.parse(entry.provider());
            List<String> prefix = new ArrayList<>(List.of(address.hostname(), address.namespace(), address.type()));
            version.ifPresent(v -> prefix.add(v.canonical()));
            List<CacheKey> platformArchives = new ArrayList<>();
            for (String platform : entry.platforms()) {
                platformArchives.add(CacheLayout.archive(address, version.orElseThrow(), Platform.parse(platform)));
            }
            blobs.dropLocalCopies(key ->
                    platformArchives.isEmpty() ? CacheLayout.under(key, prefix) : platformArchives.contains(key));
            forgetProvider(address, version);
        } else if (entry.module() != null && version.isPresent()) {
            ModuleAddress address = ModuleAddress.parse(entry.module());
            List<String> pin = CacheLayout.modulePin(address, version.get()).segments();
            blobs.dropLocalCopies(key -> CacheLayout.under(key, pin.subList(0, pin.size() - 1)));
            modules.forget(address, version.get());
        }
        LOG.info(
                "dropped what this instance held of {} {}{}, purged by another instance at {}",
                entry.provider() != null ? entry.provider() : "module " + entry.module(),
                entry.version() == null ? "(every version)" : entry.version(),
                entry.platforms().isEmpty() ? "" : " " + entry.platforms(),
                entry.at());
    }

    /** Removes the archives {@code listed} (retention): their releases and pins stay, so each is fetched again. */
    PurgeReport archives(String subject, List<BlobSummary> listed, boolean dryRun, String reason) throws IOException {
        long bytes = listed.stream().mapToLong(BlobSummary::size).sum();
        PurgeReport report =
                remove(subject, listed.stream().map(BlobSummary::key).toList(), List.of(), bytes, dryRun, reason);
        if (!dryRun) {
            // One entry per provider version (its platforms) and per module version, as an operator's purge records
            // them, so that the other instances sharing the store drop their copies and what memory holds.
            record Version(UsageItem.Kind kind, String address, String version) {}
            java.util.Map<Version, List<String>> versions = new java.util.LinkedHashMap<>();
            for (BlobSummary blob : listed) {
                ArchiveItems.of(blob.key())
                        .ifPresent(item -> versions.computeIfAbsent(
                                        new Version(
                                                item.kind(),
                                                item.address(),
                                                item.version().canonical()),
                                        ignored -> new ArrayList<>())
                                .add(item.platform()));
            }
            List<PurgeRecord.Entry> entries = new ArrayList<>();
            versions.forEach((version, platforms) -> {
                boolean provider = version.kind() == UsageItem.Kind.PROVIDER;
                entries.add(entry(
                        provider ? version.address() : null,
                        provider ? null : version.address(),
                        version.version(),
                        provider ? platforms.stream().sorted().toList() : List.of()));
            });
            if (!entries.isEmpty()) {
                remember(entries);
            }
        }
        return report;
    }

    private PurgeReport remove(
            String subject,
            Collection<CacheKey> archives,
            Collection<CacheKey> docs,
            long bytes,
            boolean dryRun,
            String reason)
            throws IOException {
        List<String> files = new ArrayList<>();
        archives.forEach(key -> files.add(key.toString()));
        docs.forEach(key -> files.add(key.toString()));
        PurgeReport report = new PurgeReport(subject, files, bytes, dryRun);
        if (dryRun || files.isEmpty()) {
            return report;
        }
        for (CacheKey archive : archives) {
            blobs.remove(archive);
        }
        for (CacheKey doc : docs) {
            documents.delete(doc);
        }
        LOG.info("purged {}: {} files, {} bytes of archives ({})", subject, files.size(), bytes, reason);
        decisions.record(Decision.purged(subject, reason));
        return report;
    }

    private boolean exists(CacheKey key) {
        try {
            return documents.read(key).isPresent();
        } catch (IOException e) {
            // An unreadable document is still a file to remove.
            return true;
        }
    }
}
