package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every segment of a cache key is checked, so no key names a file outside the cache directory. */
final class CacheKeyTest {

    private static final Path ROOT = Path.of("/var/cache/mirror");

    @Test
    void aKeyResolvesSegmentBySegmentBeneathTheRoot() {
        CacheKey key = CacheKey.of("providers", "registry.terraform.io:443", "hashicorp", "aws", "v1.2.3+build_x-y");

        assertThat(key.resolveUnder(ROOT))
                .isEqualTo(Path.of(
                        "/var/cache/mirror/providers/registry.terraform.io:443/hashicorp/aws/v1.2.3+build_x-y"));
        assertThat(key.toString()).isEqualTo("providers/registry.terraform.io:443/hashicorp/aws/v1.2.3+build_x-y");
        assertThat(key.segments()).hasSize(5);
        assertThat(CacheKey.of("a").resolveUnder(Path.of("/var/cache/./mirror/")))
                .isEqualTo(Path.of("/var/cache/mirror/a"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"..", ".", ".hidden", "a..b", "a/b", "a\\\\b", "", "a b", "%2e%2e", "\u0000", "caf\u00e9", "a\nb"
            })
    void aSegmentThatCouldLeaveOrHideInTheCacheIsRefused(String segment) {
        assertThatThrownBy(() -> CacheKey.of("providers", segment))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cache key segment: '" + segment
                        + "' (expected: letters, digits and ._+:- not starting with '.', no '..')");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "z", "A", "Z", "0", "9", "_", "+", ":", "-", "az.AZ_09+:-", "v1.2.3"})
    void everyAllowedCharacterAtTheEdgesOfItsRangeIsAccepted(String segment) {
        assertThat(CacheKey.of("providers", segment).segments()).containsExactly("providers", segment);
    }

    @ParameterizedTest
    @ValueSource(strings = {"`", "{", "@", "[", "/", "~", "a`", "a{", "a@", "a[", "a/", "a;", "a=", "a\u007f"})
    void theCharactersJustOutsideTheAllowedRangesAreRefused(String segment) {
        assertThatThrownBy(() -> CacheKey.of("providers", segment)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSegmentIsAtMost255Characters() {
        assertThat(CacheKey.of("a".repeat(255)).segments()).containsExactly("a".repeat(255));
        assertThatThrownBy(() -> CacheKey.of("a".repeat(256))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKeyHasAtLeastOneSegmentAndItsListCannotChangeAfterwards() {
        assertThatThrownBy(() -> new CacheKey(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cache key: empty (expected: at least one segment)");
        List<String> segments = new java.util.ArrayList<>(List.of("a", "b"));
        CacheKey key = new CacheKey(segments);
        segments.set(1, "..");
        assertThat(key.resolveUnder(ROOT)).isEqualTo(ROOT.resolve("a/b"));
    }
}
