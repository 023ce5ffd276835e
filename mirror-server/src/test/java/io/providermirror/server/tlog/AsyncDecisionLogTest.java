package io.providermirror.server.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision log in front of the transparency log: what its warm-up formats, and that it records none of it. */
final class AsyncDecisionLogTest {

    private final MemoryDocumentStore store = new MemoryDocumentStore();
    private final LogKey key = LogKey.generate("mirror.example/log/test", new SecureRandom());

    @Test
    void theWarmUpFormatsAFillsEntriesAsTheyAreRecordedAndRecordsNone() throws Exception {
        TransparencyLog log = TransparencyLog.open(new LogStorage(store, key.keyIdHex()), key);
        AsyncDecisionLog decisions =
                new AsyncDecisionLog(log, Clock.fixed(Instant.parse("2026-11-28T00:00:00Z"), ZoneOffset.UTC));
        try {
            List<byte[]> formatted = decisions.warmUp();

            assertThat(decisions.flush(Duration.ofSeconds(30))).isTrue();
            assertThat(log.current().checkpoint().size()).as("nothing recorded").isZero();
            ObjectMapper json = new ObjectMapper();
            assertThat(formatted).hasSize(2);
            JsonNode verified = json.readTree(formatted.get(0));
            JsonNode committed = json.readTree(formatted.get(1));
            assertThat(verified.get("kind").asText()).isEqualTo("release.verified");
            assertThat(verified.get("time").asText()).isEqualTo("2026-11-28T00:00:00Z");
            assertThat(verified.get("signingKeys").isArray()).isTrue();
            assertThat(committed.get("kind").asText()).isEqualTo("archive.committed");
            assertThat(committed.get("h1").asText()).startsWith("h1:");

            decisions.record(Decision.releaseVerified(
                    "example.test/acme/a", "1.0.0", List.of("k"), List.of("s"), List.of("linux_amd64")));
            assertThat(decisions.flush(Duration.ofSeconds(30))).isTrue();
            assertThat(log.current().checkpoint().size())
                    .as("a decision recorded after it is appended")
                    .isEqualTo(1);
        } finally {
            decisions.close();
        }
    }
}
