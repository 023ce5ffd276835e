package io.providermirror.server.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class InventoryQueryTest {

    private static final UsageItem AWS_5 = provider("registry.terraform.io/hashicorp/aws", "5.1.0");
    private static final UsageItem AWS_4 = provider("registry.terraform.io/hashicorp/aws", "4.67.0");
    private static final UsageItem AWS_5_BETA = provider("registry.terraform.io/hashicorp/aws", "5.0.0-beta1");
    private static final UsageItem AWSCC = provider("registry.terraform.io/hashicorp/awscc", "0.70.0");
    private static final UsageItem PRIVATE = provider("example.com:8443/hashicorp/aws", "3.0.0");
    private static final UsageItem VPC = UsageItem.module(
            new ModuleAddress("registry.terraform.io", "terraform-aws-modules", "vpc", "aws"),
            ProviderVersion.parse("5.0.0").orElseThrow());

    private final Map<UsageItem, Usage> inventory = new LinkedHashMap<>();

    InventoryQueryTest() {
        Instant at = Instant.parse("2026-03-01T10:00:00Z");
        inventory.put(AWS_5, new Usage(at, at.plusSeconds(60), 5, Map.of("ci", 5L)));
        inventory.put(AWS_4, new Usage(at, at.plusSeconds(30), 2, Map.of("team-a", 2L)));
        inventory.put(AWS_5_BETA, new Usage(at, at, 1, Map.of("ci", 1L)));
        inventory.put(AWSCC, new Usage(at, at, 1, Map.of("ci", 1L)));
        inventory.put(PRIVATE, new Usage(at, at, 1, Map.of("ci", 1L)));
        inventory.put(VPC, new Usage(at, at.plusSeconds(90), 3, Map.of("team-a", 3L)));
    }

    @Test
    void anAddressWithoutAHostIsOnTheDefaultHostAndMatchesWholeParts() {
        assertThat(select("hashicorp/aws", null, null)).containsExactly(AWS_5, AWS_5_BETA, AWS_4);
        assertThat(select("registry.terraform.io/hashicorp/aws", null, null)).containsExactly(AWS_5, AWS_5_BETA, AWS_4);
        assertThat(select("HashiCorp", null, null)).containsExactly(AWS_5, AWS_5_BETA, AWS_4, AWSCC);
        assertThat(select("example.com:8443/hashicorp", null, null)).containsExactly(PRIVATE);
        assertThat(select("terraform-aws-modules/vpc", null, null)).containsExactly(VPC);
    }

    @Test
    void aVersionConstraintSelectsAsTheCliDoes() {
        assertThat(select("hashicorp/aws", "< 5.0", null)).containsExactly(AWS_4);
        assertThat(select("hashicorp/aws", ">= 5.0", null)).containsExactly(AWS_5);
        assertThat(select(null, "~> 5.0", null)).containsExactly(AWS_5, VPC);
    }

    @Test
    void aClientNameSelectsWhatItRequested() {
        assertThat(select(null, null, "team-a")).containsExactly(AWS_4, VPC);
        assertThat(select(null, null, "nobody")).isEmpty();
    }

    @Test
    void theTopItemsAreTheMostRequested() {
        assertThat(InventoryQuery.top(inventory, 2).stream().map(Map.Entry::getKey))
                .containsExactly(AWS_5, VPC);
    }

    @Test
    void badParametersSayWhatIsWrong() {
        assertThatThrownBy(() -> InventoryQuery.parse(null, "<< 5", null)).hasMessageContaining("version:");
        assertThatThrownBy(() -> InventoryQuery.parse("hashicorp/a b", null, null))
                .hasMessageContaining("address: malformed part 'a b'");
        assertThatThrownBy(() -> InventoryQuery.parse("a.example/b/c/d/e", null, null))
                .hasMessageContaining("too many parts");
        assertThatThrownBy(() -> InventoryQuery.parse(Map.of("adress", List.of("x"))))
                .hasMessageContaining("unknown parameter 'adress'");
        assertThatThrownBy(() -> InventoryQuery.parse(Map.of("client", List.of("a", "b"))))
                .hasMessageContaining("more than once");
    }

    private List<UsageItem> select(String address, String version, String client) {
        return InventoryQuery.parse(address, version, client).select(inventory).stream()
                .map(Map.Entry::getKey)
                .toList();
    }

    private static UsageItem provider(String address, String version) {
        return UsageItem.provider(
                ProviderAddress.parse(address),
                ProviderVersion.parse(version).orElseThrow(),
                Platform.parse("linux_amd64"));
    }
}
