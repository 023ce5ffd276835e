package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Dry-run mode logs each version it would hold once per interval, not per request, in bounded memory. */
final class DryRunLogTest {

    private static final String AWS = "registry.terraform.io/hashicorp/aws";
    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    private final SettableClock clock = new SettableClock(NOW);

    @Test
    void aDryRunLogsEachWouldBeHeldVersionOncePerIntervalHoweverManyRequestsAndListsNameIt() {
        ReleaseAge age = new ReleaseAge(
                new PolicyConfig(null, null, null, null, Duration.ofDays(7), List.of(), null, "dryRun", List.of()),
                clock,
                new MirrorMetrics(new SimpleMeterRegistry(), clock),
                DecisionLog.NONE);
        ReleaseAge.Evidence young = new ReleaseAge.Evidence(Optional.empty(), Optional.of(NOW), Optional.empty());
        ProviderVersion v5 = ProviderVersion.parse("5.0.0").orElseThrow();
        ProviderVersion v6 = ProviderVersion.parse("6.0.0").orElseThrow();
        Logger logger = (Logger) LoggerFactory.getLogger(ReleaseAge.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        // A command run earlier in this JVM may have set the root logger to WARN: this test reads INFO lines.
        Level before = logger.getLevel();
        logger.setLevel(Level.INFO);
        try {
            for (int i = 0; i < 50; i++) {
                assertThat(age.refusal(AWS, v5, young)).isEmpty();
                assertThat(age.offered(AWS, v5, young)).isTrue();
                age.refusal(AWS, v6, young);
            }
            assertThat(messages(lines)).hasSize(2);
            assertThat(messages(lines).get(0)).contains("release-age dry run: would refuse " + AWS + " 5.0.0");
            assertThat(messages(lines).get(1)).contains(AWS + " 6.0.0");

            clock.advance(DryRunLog.INTERVAL.minusSeconds(1));
            age.offered(AWS, v5, young);
            assertThat(messages(lines)).hasSize(2);
            clock.advance(Duration.ofSeconds(1));
            age.offered(AWS, v5, young);
            assertThat(messages(lines)).hasSize(3);
            assertThat(messages(lines).get(2)).contains("would leave " + AWS + " 5.0.0 out of version lists");
        } finally {
            logger.setLevel(before);
            logger.detachAppender(lines);
        }
    }

    @Test
    void itRemembersABoundedNumberOfVersions() {
        List<String> logged = new ArrayList<>();
        DryRunLog log = new DryRunLog(clock, logged::add);
        for (int i = 0; i < DryRunLog.MAX_VERSIONS * 2; i++) {
            log.wouldHold(AWS + " 1.0." + i, "line " + i);
        }
        assertThat(logged).hasSize(DryRunLog.MAX_VERSIONS * 2);
        assertThat(log.remembered()).isLessThanOrEqualTo(DryRunLog.MAX_VERSIONS);
    }

    private static List<String> messages(ListAppender<ILoggingEvent> lines) {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
}
