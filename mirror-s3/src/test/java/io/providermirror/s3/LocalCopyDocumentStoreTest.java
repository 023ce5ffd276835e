package io.providermirror.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.cache.StoredDocument;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Documents in the bucket with a local copy of each (S3Proxy on loopback): the bucket is read first, as the shared
 * truth; the copy, with the time the bucket stored the document, only while the bucket does not answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class LocalCopyDocumentStoreTest {

    private static final CacheKey LIST = CacheKey.of("example.test", "acme", "fake", "versions.json");
    private static final CacheKey RELEASE = CacheKey.of("example.test", "acme", "fake", "1.0.0", "release.json");

    private final S3Fixture fixture = new S3Fixture();
    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-02T03:04:05Z"));

    @BeforeAll
    void startS3() throws IOException {
        fixture.start();
    }

    @AfterAll
    void stopS3() throws IOException {
        fixture.close();
    }

    @BeforeEach
    void freshPrefix() {
        fixture.newPrefix();
        fixture.listener().clear();
    }

    private LocalCopyDocumentStore store(Path directory) throws IOException {
        return new LocalCopyDocumentStore(
                new S3DocumentStore(fixture.bucket(), clock),
                new FileDocumentStore(directory, clock),
                fixture.listener());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(StoredDocument document) {
        return new String(document.content(), StandardCharsets.UTF_8);
    }

    @Test
    void whatAnInstanceWroteOrReadIsAnsweredFromItsCopyWhileTheBucketIsDown() throws IOException {
        Path directory = fixture.newTier();
        LocalCopyDocumentStore instance = store(directory);
        StoredDocument written = instance.write(LIST, utf8("{\"v\":1}"));
        clock.advance(Duration.ofMinutes(3));
        // another instance stores a release this one only reads
        StoredDocument other = store(fixture.newTier()).write(RELEASE, utf8("{\"release\":1}"));
        clock.advance(Duration.ofMinutes(1));
        assertThat(text(instance.read(RELEASE).orElseThrow())).isEqualTo("{\"release\":1}");
        clock.advance(Duration.ofMinutes(3));

        fixture.server().stop();
        try {
            StoredDocument list = instance.read(LIST).orElseThrow();
            assertThat(text(list)).isEqualTo("{\"v\":1}");
            assertThat(list.storedAt()).as("when the bucket stored it").isEqualTo(written.storedAt());
            StoredDocument release = instance.read(RELEASE).orElseThrow();
            assertThat(text(release)).isEqualTo("{\"release\":1}");
            assertThat(release.storedAt()).isEqualTo(other.storedAt());
            assertThat(fixture.listener().localCopyReads()).isEqualTo(2);

            assertThatThrownBy(() -> instance.read(CacheKey.of("example.test", "acme", "never", "versions.json")))
                    .as("no copy: the bucket's failure")
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("S3 bucket 'mirror'");
            assertThatThrownBy(() -> instance.write(LIST, utf8("{\"v\":2}")))
                    .isInstanceOf(StoreUnavailableException.class);
        } finally {
            fixture.server().start();
        }
        assertThat(text(new FileDocumentStore(directory, clock).read(LIST).orElseThrow()))
                .as("a write the bucket did not take is not copied")
                .isEqualTo("{\"v\":1}");
    }

    @Test
    void theBucketIsReadFirstSoAnotherInstancesNewerDocumentWinsAndReplacesTheCopy() throws IOException {
        Path directory = fixture.newTier();
        LocalCopyDocumentStore instance = store(directory);
        instance.write(LIST, utf8("{\"v\":1}"));
        clock.advance(Duration.ofMinutes(15));
        StoredDocument refreshed = store(fixture.newTier()).write(LIST, utf8("{\"v\":2}"));
        clock.advance(Duration.ofMinutes(1));

        StoredDocument read = instance.read(LIST).orElseThrow();

        assertThat(text(read)).isEqualTo("{\"v\":2}");
        assertThat(fixture.listener().localCopyReads()).isZero();
        StoredDocument copy = new FileDocumentStore(directory, clock).read(LIST).orElseThrow();
        assertThat(text(copy)).isEqualTo("{\"v\":2}");
        assertThat(copy.storedAt()).isEqualTo(refreshed.storedAt());
    }

    @Test
    void aDocumentTheBucketDoesNotHoldIsAbsentWhateverTheCopySays() throws IOException {
        Path directory = fixture.newTier();
        new FileDocumentStore(directory, clock).write(LIST, utf8("{\"from\":\"another bucket\"}"));

        assertThat(store(directory).read(LIST)).isEmpty();
    }
}
