package io.providermirror.server.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one ranking of the usage inventory by requests. */
final class MostRequestedTest {

    private static final Instant AT = Instant.parse("2026-03-01T10:00:00Z");

    private final Map<UsageItem, Usage> items = new LinkedHashMap<>();

    @Test
    void theRequestsOfTheItemsOneKeyGroupsAreSummed() {
        put("a.example/acme/one", "1.0.0", 3, 0);
        put("b.example/acme/one", "1.0.0", 2, 0);
        put("b.example/acme/two", "1.0.0", 2, 0);

        assertThat(MostRequested.rank(items, MostRequestedTest::host, Comparator.naturalOrder(), 10))
                .containsExactly("b.example", "a.example");
    }

    @Test
    void tiesGoToTheKeyRequestedLastThenToTheOrder() {
        put("a.example/acme/one", "1.0.0", 2, 10);
        put("b.example/acme/one", "1.0.0", 2, 20);
        put("c.example/acme/one", "1.0.0", 2, 20);

        assertThat(MostRequested.rank(items, MostRequestedTest::host, Comparator.naturalOrder(), 10))
                .containsExactly("b.example", "c.example", "a.example");
        assertThat(MostRequested.rank(items, MostRequestedTest::host, Comparator.reverseOrder(), 10))
                .containsExactly("c.example", "b.example", "a.example");
    }

    @Test
    void atMostTheLimitAndNothingTheKeyLeavesOut() {
        put("a.example/acme/one", "1.0.0", 1, 0);
        put("b.example/acme/one", "1.0.0", 5, 0);
        put("c.example/acme/one", "1.0.0", 3, 0);

        assertThat(MostRequested.rank(items, MostRequestedTest::host, Comparator.naturalOrder(), 2))
                .containsExactly("b.example", "c.example");
        assertThat(MostRequested.rank(
                        items, item -> host(item).filter(host -> !host.startsWith("b")), Comparator.naturalOrder(), 10))
                .containsExactly("c.example", "a.example");
    }

    private void put(String address, String version, long requests, long lastSecond) {
        items.put(
                UsageItem.provider(
                        ProviderAddress.parse(address), new ProviderVersion(version), Platform.parse("linux_amd64")),
                new Usage(AT, AT.plusSeconds(lastSecond), requests, Map.of("ci", requests)));
    }

    private static Optional<String> host(UsageItem item) {
        return Optional.of(item.host());
    }
}
