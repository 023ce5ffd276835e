package io.providermirror.server.providers;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.OriginRules;
import io.providermirror.testkit.ProviderZips;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.Origin;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.VersionList;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * An {@link Origin} in memory, standing in for a parent network mirror at {@link #MIRROR}: it lists one version of
 * {@link #ADDRESS} (spelled {@code 1.2}) for one platform, vouches for its archive by its {@code zh:} hash, and
 * counts what it is asked. Tests hold its answers back, fail them or tamper with the archive.
 */
final class ScriptedOrigin implements Origin {

    static final ProviderAddress ADDRESS = new ProviderAddress("registry.example", "hashicorp", "null");
    static final ProviderVersion VERSION = ProviderVersion.parse("1.2.0").orElseThrow();
    static final String SPELLING = "1.2";
    static final Platform PLATFORM = Platform.parse("linux_amd64");
    static final URI MIRROR = URI.create("https://parent.example/providers/");

    final byte[] archive = ProviderZips.provider("null", "1.2.0", "linux_amd64");
    final AtomicInteger versionCalls = new AtomicInteger();
    final AtomicInteger releaseCalls = new AtomicInteger();
    final AtomicInteger archiveOpens = new AtomicInteger();
    final AtomicReference<Optional<String>> spellingGiven = new AtomicReference<>();
    /** Opened by a test to let version lists through; open unless a test closes it. */
    volatile CountDownLatch versionsGate = new CountDownLatch(0);
    /** Opened by a test to let archives through; open unless a test closes it. */
    volatile CountDownLatch archiveGate = new CountDownLatch(0);
    /** How many of the next archive downloads fail. */
    final AtomicInteger archiveFailures = new AtomicInteger();

    volatile boolean failing;
    volatile boolean tampering;

    @Override
    public RegistryClient.FetchedVersions versions(ProviderAddress address) {
        versionCalls.incrementAndGet();
        await(versionsGate);
        failIfAsked();
        byte[] body = ("{\"versions\":[{\"version\":\"" + SPELLING + "\",\"platforms\":[{\"os\":\"linux\",\"arch\":"
                        + "\"amd64\"}]}]}")
                .getBytes(StandardCharsets.UTF_8);
        return new RegistryClient.FetchedVersions(body, VersionList.parse(address, body, describe()));
    }

    @Override
    public ReleaseEvidence release(ProviderAddress address, ListedVersion listed) {
        releaseCalls.incrementAndGet();
        failIfAsked();
        URI document = MIRROR.resolve(address.hostname() + "/" + address.namespace() + "/" + address.type() + "/"
                + listed.version() + ".json");
        String json = "{\"archives\":{\"" + PLATFORM + "\":{\"url\":\"terraform-provider-null_1.2.0_linux_amd64.zip\","
                + "\"hashes\":[\"zh:"
                + HexFormat.of().formatHex(PackageHashes.sha256().digest(archive)) + "\"]}}}";
        return ReleaseEvidence.fromParentMirror(document, json.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public OriginHttpClient.ArchiveStream openArchive(
            ProviderAddress address,
            ProviderVersion version,
            Supplier<Optional<String>> originSpelling,
            VerifiedPackage pkg,
            Deadline deadline) {
        archiveOpens.incrementAndGet();
        spellingGiven.set(originSpelling.get());
        await(archiveGate);
        failIfAsked();
        if (archiveFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, "the scripted origin failed this archive");
        }
        byte[] bytes = archive.clone();
        if (tampering) {
            bytes[bytes.length / 2] ^= 1;
        }
        return new OriginHttpClient.ArchiveStream(
                pkg.downloadUrl(), OptionalLong.of(bytes.length), new ByteArrayInputStream(bytes));
    }

    @Override
    public String describe() {
        return MIRROR.getAuthority();
    }

    /** The rules under which this origin's evidence is trusted: {@link #MIRROR} stands in for the host. */
    static OriginRules trustingRules() {
        return new OriginRules(java.util.Map.of(
                ADDRESS.hostname(),
                new io.providermirror.server.config.HostConfig(null, MIRROR, null, null, null, List.of(), List.of())));
    }

    private void failIfAsked() {
        if (failing) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, "the scripted origin is down");
        }
    }

    private static void await(CountDownLatch gate) {
        try {
            if (!gate.await(10, TimeUnit.SECONDS)) {
                throw new OriginException(OriginException.Reason.TIMEOUT, "the scripted origin was never let through");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OriginException(OriginException.Reason.UNAVAILABLE, "interrupted", e);
        }
    }
}
