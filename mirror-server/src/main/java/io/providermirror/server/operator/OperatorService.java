package io.providermirror.server.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.bundle.BundleCounts;
import io.providermirror.server.bundle.BundleImporter;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.http.OperatorActions;
import io.providermirror.server.inventory.InventoryAnswer;
import io.providermirror.server.inventory.InventoryQuery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator API's actions on a running mirror: {@link BundleImporter} over the mirror's own stores, and
 * {@link io.providermirror.server.purge.CachePurge#acceptModule} as {@code modules accept} runs it. Afterwards
 * the mirror forgets what memory holds of what changed (version lists, pinned download answers, a remembered
 * verification failure), so the next request reads the cache: no restart, no stale answer.
 */
public final class OperatorService implements OperatorActions {

    /** Where bundles are written before they are imported, in the cache directory (no provider host has a {@code _}). */
    public static final String UPLOADS = "_uploads";

    private static final Logger LOG = LoggerFactory.getLogger(OperatorService.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final MirrorWiring core;
    private final long maxBundleBytes;
    private final Path uploads;

    /** Over {@code core}; removes what an earlier process left in the upload directory. */
    public OperatorService(MirrorWiring core, long maxBundleBytes) throws IOException {
        this.core = core;
        this.maxBundleBytes = maxBundleBytes;
        this.uploads = core.cacheDirectory().resolve(UPLOADS);
        if (Files.isDirectory(uploads)) {
            try (Stream<Path> leftovers = Files.list(uploads)) {
                for (Path leftover : leftovers.toList()) {
                    Files.deleteIfExists(leftover);
                }
            }
        }
    }

    @Override
    public Path uploadDirectory() {
        return uploads;
    }

    @Override
    public long maxBundleBytes() {
        return maxBundleBytes;
    }

    @Override
    public CompletableFuture<byte[]> importBundle(Path file) {
        return CompletableFuture.supplyAsync(
                () -> {
                    BundleImporter.Report report;
                    try {
                        report = new BundleImporter(core).importBundle(file);
                    } catch (BundleImporter.RefusedException e) {
                        throw new Refused(
                                400, "the bundle was refused: " + e.getMessage() + "; nothing of it was imported");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    report.providers().forEach(core.mirror()::forgetVersionList);
                    report.modules().forEach(core.modules()::forgetVersionList);
                    LOG.info(
                            "operator API: imported a bundle of {}: {}",
                            report.carried().describe(),
                            report.outcome());
                    return json(importAnswer(report));
                },
                core.executor());
    }

    private static Map<String, Object> importAnswer(BundleImporter.Report report) {
        BundleCounts carried = report.carried();
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("providers", carried.providers());
        counts.put("providerVersions", carried.providerVersions());
        counts.put("archives", carried.archives());
        counts.put("platforms", carried.platforms());
        counts.put("modules", carried.modules());
        counts.put("moduleVersions", carried.moduleVersions());
        Map<String, Object> added = new LinkedHashMap<>();
        added.put("archives", report.newArchives());
        added.put("moduleVersions", report.newModuleVersions());
        added.put("listedVersions", report.newlyListed());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("carried", counts);
        answer.put("added", added);
        answer.put("addedNothing", report.addedNothing());
        answer.put("signingKeys", report.signingKeysByHost());
        answer.put("summary", carried.describe() + ", " + report.outcome());
        return answer;
    }

    @Override
    public CompletableFuture<byte[]> acceptModule(ModuleAddress address, ProviderVersion version) {
        return CompletableFuture.supplyAsync(
                () -> {
                    ModulePin pin;
                    try {
                        pin = core.purge().acceptModule(address, version);
                    } catch (IllegalArgumentException e) {
                        throw new Refused(404, e.getMessage());
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                    LOG.info("operator API: released the pin of module {} {} ({})", address, version, pin.identity());
                    Map<String, Object> answer = new LinkedHashMap<>();
                    answer.put("module", address.toString());
                    answer.put("version", version.toString());
                    answer.put(
                            "released",
                            Map.of(
                                    "identity", pin.identity(),
                                    "source", pin.source(),
                                    "pinnedAt", pin.pinnedAt().toString()));
                    answer.put("summary", released(address, version, pin));
                    return json(answer);
                },
                core.executor());
    }

    @Override
    public CompletableFuture<byte[]> purgeProvider(
            io.providermirror.model.ProviderAddress address,
            ProviderVersion version,
            java.util.Set<io.providermirror.model.Platform> platforms) {
        return purged(() ->
                core.purge().provider(address, java.util.Optional.ofNullable(version), platforms, false, PURGE_REASON));
    }

    @Override
    public CompletableFuture<byte[]> purgeModule(ModuleAddress address, ProviderVersion version) {
        return purged(() -> core.purge().module(address, version, false, PURGE_REASON));
    }

    /** Why an operator API purge removed something, as the log and the transparency log say it. */
    private static final String PURGE_REASON = "purged by an operator through the operator API";

    private interface PurgeCall {
        io.providermirror.server.purge.PurgeReport run() throws IOException;
    }

    private CompletableFuture<byte[]> purged(PurgeCall call) {
        return CompletableFuture.supplyAsync(
                () -> {
                    io.providermirror.server.purge.PurgeReport report;
                    try {
                        report = call.run();
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                    if (report.empty()) {
                        throw new Refused(404, report.summary());
                    }
                    LOG.info("operator API: {}", report.summary());
                    return json(report.toJson());
                },
                core.executor());
    }

    @Override
    public CompletableFuture<byte[]> inventory(InventoryQuery query) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return InventoryAnswer.json(
                                query.select(core.inventory().fleet()));
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                },
                core.executor());
    }

    /** What {@code modules accept} says it did, on a stopped mirror and through the API alike. */
    public static String released(ModuleAddress address, ProviderVersion version, ModulePin pin) {
        return address + " " + version + " was pinned at " + pin.identity() + " (" + pin.source() + ", "
                + pin.pinnedAt() + "); the next request fetches it again and pins what it finds";
    }

    private static byte[] json(Map<String, Object> answer) {
        try {
            return JSON.writeValueAsBytes(answer);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an operator answer as JSON", e);
        }
    }
}
