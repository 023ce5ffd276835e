package io.providermirror.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.upstream.OriginObserver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Each origin's health on the status page, verification failures included, and the bounded list of recent problems. */
final class OriginHealthTest {

    private final Clock clock = Clock.fixed(Instant.parse("2026-11-23T12:00:00Z"), ZoneOffset.UTC);
    private final OriginHealth health = new OriginHealth(clock);

    private void succeeded(String origin, String host) {
        health.requestCompleted(
                origin,
                host,
                OriginObserver.Operation.ARCHIVE,
                OriginObserver.Outcome.SUCCESS,
                Duration.ofMillis(5),
                null);
    }

    @Test
    void refusedArchivesCountAsFailuresOfTheirOriginThoughEveryRequestSucceeded() {
        for (int i = 0; i < 3; i++) {
            succeeded("example.test", "127.0.0.1:42601");
            health.verificationFailed(
                    "example.test",
                    "example.test/acme/bad 1.0.0 linux_amd64",
                    "archive_hash",
                    "the archive's sha256 is not the one in the signed SHA256SUMS");
        }

        assertThat(health.snapshot()).singleElement().satisfies(origin -> {
            assertThat(origin.origin()).isEqualTo("example.test");
            assertThat(origin.succeeded()).isEqualTo(3);
            assertThat(origin.refused()).isEqualTo(3);
            assertThat(origin.healthy()).isFalse();
            assertThat(origin.lastFailure()).isEqualTo(clock.instant());
            assertThat(origin.lastFailureMessage()).contains("archive_hash").contains("signed SHA256SUMS");
        });
        assertThat(health.recentProblems()).singleElement().satisfies(problem -> {
            assertThat(problem.origin()).isEqualTo("example.test");
            assertThat(problem.subject()).isEqualTo("example.test/acme/bad 1.0.0 linux_amd64");
            assertThat(problem.what()).startsWith("refused: the archive_hash check failed");
            assertThat(problem.count())
                    .as("the same refusal three times is one problem")
                    .isEqualTo(3);
        });
    }

    @Test
    void anOriginIsKnownByItsHostnameWithTheAuthoritiesContactedForIt() {
        succeeded("registry.terraform.io", "registry.terraform.io");
        succeeded("registry.terraform.io", "releases.hashicorp.com");
        succeeded("example.test", "127.0.0.1:42601");

        assertThat(health.snapshot())
                .extracting(OriginHealth.Snapshot::origin)
                .containsExactly("example.test", "registry.terraform.io");
        assertThat(health.snapshot().get(1).contacted())
                .containsExactly("registry.terraform.io", "releases.hashicorp.com");
        assertThat(health.snapshot().get(0).contacted()).containsExactly("127.0.0.1:42601");
    }

    @Test
    void recentProblemsKeepOnlyTheLastTwentyNewestFirstWithQueryStringsStripped() {
        for (int i = 0; i < OriginHealth.RECENT_PROBLEMS + 5; i++) {
            health.requestCompleted(
                    "example.test",
                    "bucket.example",
                    OriginObserver.Operation.ARCHIVE,
                    OriginObserver.Outcome.ERROR,
                    Duration.ofMillis(5),
                    "https://bucket.example/p" + i + ".zip?X-Amz-Signature=s3cr3t answered HTTP 403");
        }

        assertThat(health.recentProblems()).hasSize(OriginHealth.RECENT_PROBLEMS);
        assertThat(health.recentProblems().get(0).what()).contains("/p24.zip?[redacted]");
        assertThat(health.recentProblems().get(OriginHealth.RECENT_PROBLEMS - 1).what())
                .contains("/p5.zip");
        assertThat(health.recentProblems()).noneMatch(problem -> problem.what().contains("s3cr3t"));
        assertThat(health.snapshot().get(0).lastFailureMessage()).doesNotContain("s3cr3t");
    }

    private void failed(String what) {
        health.requestCompleted(
                "example.test",
                "127.0.0.1:42601",
                OriginObserver.Operation.VERSIONS,
                OriginObserver.Outcome.ERROR,
                Duration.ofMillis(5),
                what);
    }

    @Test
    void aFailedRequestNamesTheProviderOrModuleItWasFor() {
        failed("the version list of example.test/acme/aws from example.test: answered HTTP 500");
        failed("the download of module example.test/acme/network/aws 1.2.0: the request timed out");
        failed("the download document of example.test/acme/aws 5.1.0 linux_amd64: answered HTTP 502");
        failed("service discovery for example.test: connection refused");

        assertThat(health.recentProblems())
                .extracting(OriginHealth.Problem::subject)
                .containsExactly(
                        null,
                        "example.test/acme/aws 5.1.0 linux_amd64",
                        "example.test/acme/network/aws 1.2.0",
                        "example.test/acme/aws");
    }

    @Test
    void retriesOfOneFailureAreOneProblemWithACountMovedToTheTop() {
        failed("the version list of example.test/acme/a: answered HTTP 500");
        failed("the version list of example.test/acme/b: answered HTTP 500");
        failed("the version list of example.test/acme/a: answered HTTP 500");
        failed("the version list of example.test/acme/a: answered HTTP 500");

        assertThat(health.recentProblems())
                .extracting(OriginHealth.Problem::subject, OriginHealth.Problem::count)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("example.test/acme/a", 3L),
                        org.assertj.core.groups.Tuple.tuple("example.test/acme/b", 1L));
    }

    @Test
    void onlyAnOriginThatGotNoAnswerIsUnreachableNotOneWhoseReleaseWasRefused() {
        failed("the version list of example.test/acme/a: connection refused");
        assertThat(health.snapshot().get(0).unreachable()).isTrue();

        health.verificationFailed("example.test", "example.test/acme/a 1.0.0 linux_amd64", "signature", null);
        assertThat(health.snapshot().get(0).unreachable()).isFalse();
        assertThat(health.snapshot().get(0).healthy()).isFalse();
    }
}
