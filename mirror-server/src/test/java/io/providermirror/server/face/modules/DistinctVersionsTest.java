package io.providermirror.server.face.modules;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ProviderVersion;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Versions that differ only in build metadata are one version, as the CLI matches them. */
final class DistinctVersionsTest {

    private static List<ProviderVersion> versions(String... versions) {
        return Arrays.stream(versions).map(ProviderVersion::new).toList();
    }

    @Test
    void theSpellingWithoutBuildMetadataIsListedWhereverTheOriginPutsItsTwins() {
        DistinctVersions distinct = DistinctVersions.of(versions("1.0.0+evil", "2.0.0", "1.0.0", "1.0.0+b.2"));
        assertThat(distinct.listed()).isEqualTo(versions("2.0.0", "1.0.0"));
        assertThat(distinct.twins()).isEqualTo(versions("1.0.0+evil", "1.0.0+b.2"));
    }

    @Test
    void withoutAPlainSpellingTheFirstIsListedAndAVersionNamedTwiceIsNoTwin() {
        DistinctVersions distinct =
                DistinctVersions.of(versions("3.0.0+b.1", "3.0.0+b.2", "1.1.0", "1.1.0", "1.0.0-rc.1+x", "1.0.0-rc.1"));
        assertThat(distinct.listed()).isEqualTo(versions("3.0.0+b.1", "1.1.0", "1.0.0-rc.1"));
        assertThat(distinct.twins()).isEqualTo(versions("3.0.0+b.2", "1.0.0-rc.1+x"));
    }
}
