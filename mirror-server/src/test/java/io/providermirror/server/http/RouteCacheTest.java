package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsed routes are reused, refusals are not kept, and the cache stays bounded whatever paths arrive. */
final class RouteCacheTest {

    private static final String INDEX = "/providers/registry.terraform.io/hashicorp/random/index.json";

    private final RouteCache cache = new RouteCache();

    @Test
    void answersWhatTheParserAnswers() {
        for (String path : List.of(
                INDEX,
                "/providers/registry.terraform.io/hashicorp/random/2.0.0.json",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_2.0.0_linux_amd64.zip",
                "/registry/registry.terraform.io/modules.v1/hashicorp/consul/aws/versions",
                "/metrics",
                "/",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-other_2.0.0_linux_amd64.zip",
                "/providers/UPPER/hashicorp/random/index.json",
                "/elsewhere")) {
            assertThat(cache.route(path)).as(path).isEqualTo(RouteParser.parse(path));
            assertThat(cache.route(path)).as(path + ", asked again").isEqualTo(RouteParser.parse(path));
        }
    }

    @Test
    void aPathThatParsedIsNotParsedAgain() {
        Route first = cache.route(INDEX);
        assertThat(cache.route(INDEX)).isSameAs(first);
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void refusalsAreNotKept() {
        for (int i = 0; i < 100; i++) {
            assertThat(cache.route("/providers/Bad" + i + "/hashicorp/random/index.json"))
                    .isInstanceOf(Route.Invalid.class);
            assertThat(cache.route("/nothing/" + i)).isInstanceOf(Route.Invalid.class);
        }
        assertThat(cache.size()).isZero();
    }

    @Test
    void holdsAtMostItsBoundHoweverManyPathsClientsSend() {
        for (int i = 0; i < RouteCache.MAX_ROUTES * 3; i++) {
            assertThat(cache.route("/providers/registry.terraform.io/hashicorp/p" + i + "/index.json"))
                    .isInstanceOf(Route.VersionIndex.class);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(RouteCache.MAX_ROUTES);
    }
}
