package io.providermirror.server.bundle;

import io.providermirror.cache.CacheKey;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.bundle.BundleImporter.RefusedException;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks every release of a read bundle as the mirror would check it from its origin: its evidence under the
 * host's signature policy, each archive against its verified hash, and both against what the cache holds
 * already, since a cached version never changes. Any failure refuses the whole bundle.
 */
final class ReleaseChecks {

    /** A release that passed: what to commit of it, and whether the cache's own evidence for it stands. */
    record CheckedRelease(
            ProviderAddress address,
            ProviderVersion version,
            List<Platform> platforms,
            ReleaseEvidence evidence,
            boolean cachedEvidenceStands) {}

    private final MirrorWiring core;
    private final CacheDocuments cache;

    ReleaseChecks(MirrorWiring core, CacheDocuments cache) {
        this.core = core;
        this.cache = cache;
    }

    /**
     * Checks every release of {@code contents}; {@code checked} receives each, in the manifest's order.
     *
     * @return the keys that vouched for them, by host
     */
    Map<String, SortedSet<String>> check(BundleContents contents, List<CheckedRelease> checked) throws IOException {
        CacheDocuments bundled = new CacheDocuments(contents.documents());
        Map<String, SortedSet<String>> keys = new TreeMap<>();
        for (BundleManifest.Release release : contents.manifest().releases()) {
            ProviderAddress address = address(release.provider());
            ProviderVersion version = version(release);
            String what = address + " " + version;
            if (release.platforms().isEmpty()) {
                throw new RefusedException(what + ": the manifest lists no platform for it; a bundle carries a release "
                        + "with the archives it holds");
            }
            Optional<String> unservable = core.mirror().refusal(address, version);
            if (unservable.isPresent()) {
                throw new RefusedException(what + ": this mirror would never serve it (" + unservable.get()
                        + "), so it imports nothing of it");
            }
            ReleaseEvidence evidence = bundledEvidence(bundled, address, version, what);
            VerifiedRelease verified = verify(address, version, evidence, what);
            VerifiedRelease cached = cachedRelease(address, version);
            refuseContradictions(what, address, version, verified, cached);
            List<Platform> platforms = new ArrayList<>();
            for (String platformName : release.platforms()) {
                Platform platform = platform(what, platformName);
                VerifiedPackage pkg = verified.find(platform)
                        .orElseThrow(() ->
                                new RefusedException(what + ": its verified release has no package for " + platform));
                BundleContents.StagedArchive staged =
                        contents.archives().get(CacheLayout.archive(address, version, platform));
                if (staged == null) {
                    throw new RefusedException(what + " " + platform + ": the bundle lacks its archive");
                }
                checkArchive(
                        what + " " + platform, pkg, cached, staged, CacheLayout.archive(address, version, platform));
                platforms.add(platform);
                keys.computeIfAbsent(address.hostname(), h -> new TreeSet<>()).add(pkg.signingKeyId());
            }
            checked.add(new CheckedRelease(address, version, platforms, evidence, cached != null));
        }
        return keys;
    }

    private static ReleaseEvidence bundledEvidence(
            CacheDocuments bundled, ProviderAddress address, ProviderVersion version, String what)
            throws RefusedException {
        try {
            if (bundled.versionList(address).isEmpty()) {
                throw new RefusedException(what + ": the bundle lacks its version list or its release evidence");
            }
            return bundled.releaseEvidence(address, version)
                    .orElseThrow(() ->
                            new RefusedException(what + ": the bundle lacks its version list or its release evidence"))
                    .value();
        } catch (RefusedException e) {
            throw e;
        } catch (IOException e) {
            // The document's own complaint, without the "cached" of a document read from the cache.
            throw new RefusedException(what + " does not verify: "
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
        }
    }

    private VerifiedRelease verify(
            ProviderAddress address, ProviderVersion version, ReleaseEvidence evidence, String what)
            throws RefusedException {
        try {
            // Taken in now as from an origin: its signatures' dates are judged at the import (a bundle's documents
            // carry no time the mirror could trust).
            return ReleaseVerifier.verify(
                    address,
                    version,
                    evidence,
                    core.rules().signaturePolicy(address.hostname()),
                    core.clock().instant());
        } catch (OriginException | VerificationException | IllegalArgumentException e) {
            throw new RefusedException(what + " does not verify: " + e.getMessage());
        }
    }

    /** The release the cache holds already, if its evidence still verifies under this mirror's rules. */
    private VerifiedRelease cachedRelease(ProviderAddress address, ProviderVersion version) throws IOException {
        try {
            Optional<CacheDocuments.Dated<ReleaseEvidence>> stored = cache.releaseEvidence(address, version);
            return stored.isEmpty()
                    ? null
                    : ReleaseVerifier.verify(
                            address,
                            version,
                            stored.get().value(),
                            core.rules().signaturePolicy(address.hostname()),
                            judgedAt(stored.get().storedAt()));
        } catch (OriginException
                | VerificationException
                | CacheDocuments.Unreadable
                | IllegalArgumentException unverifiable) {
            // The mirror drops such evidence when it reads it; it vouches for nothing here either. A cache that
            // cannot be read at all (any other IOException) stops the import: nothing may replace what it holds.
            return null;
        }
    }

    /** As the mirror judges its own cached evidence: when it was stored, never later than now. */
    private java.time.Instant judgedAt(java.time.Instant storedAt) {
        java.time.Instant now = core.clock().instant();
        return storedAt.isBefore(now) ? storedAt : now;
    }

    /**
     * A committed archive never changes, whatever evidence vouches for its version now: every package the bundle's
     * evidence names, carried or not, must agree with the archive the cache holds for it, and with the cache's
     * verified evidence for the version when there is some (that evidence stays).
     */
    private void refuseContradictions(
            String what,
            ProviderAddress address,
            ProviderVersion version,
            VerifiedRelease verified,
            VerifiedRelease cached)
            throws IOException {
        for (VerifiedPackage offered : verified.packages().values()) {
            var committed = core.blobs().find(CacheLayout.archive(address, version, offered.platform()));
            if (committed.isPresent()
                    && offered.sha256() != null
                    && !committed.get().sha256().equals(offered.sha256())) {
                throw new RefusedException(what + " " + offered.platform() + ": the cache already holds a verified "
                        + "archive with sha256 " + committed.get().sha256() + ", and the bundle's evidence says sha256 "
                        + offered.sha256() + "; a cached version never changes, so the cached one stays");
            }
        }
        if (cached == null) {
            return;
        }
        for (VerifiedPackage offered : verified.packages().values()) {
            VerifiedPackage known = cached.find(offered.platform()).orElse(null);
            if (known != null && contradicts(known, offered)) {
                throw new RefusedException(what + " " + offered.platform() + ": the cache already holds this "
                        + "version, verified with " + hashes(known) + " for this platform, and the bundle's "
                        + "evidence says " + hashes(offered) + "; a cached version never changes, so the cached "
                        + "one stays");
            }
        }
    }

    /** The staged archive against its verified package, the cache's verified release (if any) and its blob. */
    private void checkArchive(
            String what, VerifiedPackage pkg, VerifiedRelease cached, BundleContents.StagedArchive staged, CacheKey key)
            throws IOException {
        if (!matches(pkg, staged)) {
            throw new RefusedException(what + ": the archive does not match the verified hash (" + hashes(pkg) + ")");
        }
        VerifiedPackage known = cached == null
                ? null
                : cached.find(pkg.platform())
                        .orElseThrow(() -> new RefusedException(
                                what + ": the cache already holds this version, verified, and it has no package "
                                        + "for this platform; a cached version never changes"));
        if (known != null && !matches(known, staged)) {
            throw new RefusedException(what + ": the cache already holds this version, verified "
                    + "with " + hashes(known) + " for this platform, and the bundle's archive has sha256 "
                    + staged.sha256() + "; a cached version never changes, so the cached one stays");
        }
        var committed = core.blobs().find(key);
        if (committed.isPresent() && !committed.get().sha256().equals(staged.sha256())) {
            throw new RefusedException(what + ": the cache already holds a verified archive "
                    + "with sha256 " + committed.get().sha256() + ", and the bundle's has sha256 "
                    + staged.sha256() + "; a cached version never changes, so the cached one stays");
        }
    }

    private static boolean matches(VerifiedPackage pkg, BundleContents.StagedArchive staged) throws IOException {
        return pkg.sha256() != null
                ? pkg.sha256().equals(staged.sha256())
                : pkg.h1().contains(PackageHashes.h1(staged.write().openReader()));
    }

    /**
     * True when two verified packages of one platform cannot both be right: different sha256, or (where only
     * {@code h1:} hashes are known on both sides) no hash in common. A package known by sha256 on one side and
     * by {@code h1:} only on the other is checked against the archive instead.
     */
    private static boolean contradicts(VerifiedPackage known, VerifiedPackage offered) {
        if (known.sha256() != null && offered.sha256() != null) {
            return !known.sha256().equals(offered.sha256());
        }
        if (known.sha256() == null && offered.sha256() == null) {
            return known.h1().stream().noneMatch(offered.h1()::contains);
        }
        return false;
    }

    private static String hashes(VerifiedPackage pkg) {
        return pkg.sha256() != null ? "sha256 " + pkg.sha256() : String.join(", ", pkg.h1());
    }

    private static Platform platform(String what, String name) throws RefusedException {
        try {
            return Platform.parse(name);
        } catch (IllegalArgumentException e) {
            throw new RefusedException(what + ": the manifest names " + e.getMessage());
        }
    }

    private static ProviderVersion version(BundleManifest.Release release) throws RefusedException {
        return ProviderVersion.parse(release.version())
                .orElseThrow(() -> new RefusedException(
                        "the manifest names version '" + release.version() + "', which is not semver"));
    }

    private static ProviderAddress address(String text) throws RefusedException {
        String[] parts = text.split("/");
        try {
            return new ProviderAddress(parts[0], parts[1], parts[2]);
        } catch (RuntimeException e) {
            throw new RefusedException("the manifest names '" + text + "', which is not a provider address");
        }
    }
}
