package io.providermirror.server.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.FileDocumentStore;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release shipped for the warm-up after start-up verifies as an origin's release must: if it stopped verifying,
 * the warm-up would load and run nothing of the verification, and warn at every start.
 */
final class SampleReleaseTest {

    @Test
    void theSampleReleaseVerifiesUnderTheClisPolicyWithItsArchivesHashes() throws Exception {
        VerifiedPackage verified = SampleRelease.verify();

        byte[] archive = SampleRelease.archive();
        assertThat(verified.platform()).isEqualTo(SampleRelease.PLATFORM);
        assertThat(verified.sha256())
                .isEqualTo(HexFormat.of().formatHex(PackageHashes.sha256().digest(archive)));
        assertThat(verified.signingKeyId())
                .isNotEqualTo(VerifiedPackage.UNSIGNED)
                .hasSize(16);
        assertThat(verified.h1()).singleElement().asString().startsWith("h1:");
    }

    @Test
    void theSampleReleasesDocumentsFormatAndReadBackAsTheCacheStoresThem(@TempDir Path root) throws Exception {
        VerifiedPackage verified = SampleRelease.verify();

        byte[] formatted = CacheDocuments.warmUp(
                SampleRelease.evidence(),
                Map.of(verified.platform(), verified.h1().get(0)));

        FileDocumentStore store = new FileDocumentStore(root, Clock.systemUTC());
        new CacheDocuments(store)
                .writeReleaseEvidence(SampleRelease.ADDRESS, SampleRelease.VERSION, SampleRelease.evidence());
        assertThat(formatted)
                .isEqualTo(store.read(CacheLayout.release(SampleRelease.ADDRESS, SampleRelease.VERSION))
                        .orElseThrow()
                        .content());
    }
}
