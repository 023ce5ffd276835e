package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

final class VersionListTest {

    private static final ProviderAddress ADDRESS = ProviderAddress.parse("example.test/acme/foo");

    private static VersionList parse(String json) {
        return VersionList.parse(ADDRESS, json.getBytes(StandardCharsets.UTF_8), "https://example.test");
    }

    @Test
    void keepsTheProtocolsAnOriginNamesAndWritesThemBack() {
        VersionList list = parse("{\"versions\":[{\"version\":\"1.0.0\",\"protocols\":[\"5.0\",\"6\"],"
                + "\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"}]},{\"version\":\"0.9.0\",\"platforms\":[]}]}");

        ListedVersion listed = list.find(new ProviderVersion("1.0.0")).orElseThrow();
        assertThat(listed.protocols()).containsExactly("5.0", "6");
        assertThat(listed.platforms()).containsExactly(new Platform("linux", "amd64"));
        assertThat(list.find(new ProviderVersion("0.9.0")).orElseThrow().protocols())
                .isEmpty();

        VersionList again = VersionList.parse(ADDRESS, list.encode(), "the cache");
        assertThat(again).isEqualTo(list);
        assertThat(new String(list.encode(), StandardCharsets.UTF_8))
                .contains("\"protocols\":[\"5.0\",\"6\"]")
                .doesNotContain("\"version\":\"0.9.0\",\"protocols\"");
    }

    @Test
    void leavesOutProtocolsThatAreNotShortVersionNumbers() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            many.append(",\"").append(i).append('"');
        }
        VersionList list = parse("{\"versions\":[{\"version\":\"1.0.0\",\"protocols\":[\"5.0\","
                + "\"<script>\",7,\"5.0.0.0\",\"\",\"12345\",null" + many + "],\"platforms\":[]}]}");

        List<String> protocols =
                list.find(new ProviderVersion("1.0.0")).orElseThrow().protocols();
        assertThat(protocols).hasSize(8).startsWith("5.0", "0", "1").allMatch(p -> p.matches("[0-9.]+"));
    }
}
