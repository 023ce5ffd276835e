package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import io.providermirror.testkit.FakeOrigin;
import java.nio.file.Path;
import java.util.Map;

/**
 * A parent network mirror whose every answer the test writes (a tree like {@code terraform providers mirror} makes,
 * or one an attacker controls), served under {@code /mirror/} by a {@link FakeOrigin}'s WireMock, and the child
 * mirrors that use it as {@code example.test}'s {@code mirrorUrl}. Paths are the provider directory's
 * ({@link #directory}) plus a file name.
 */
final class StaticParentMirror {

    private final FakeOrigin tree;

    StaticParentMirror(FakeOrigin tree) {
        this.tree = tree;
    }

    /** The directory of {@code example.test/acme/<type>} in the tree, ending in {@code /}. */
    static String directory(String type) {
        return "/mirror/" + MirrorFixture.HOST + "/acme/" + type + "/";
    }

    /** Answers {@code path} with {@code json}. */
    void json(String path, String json) {
        answer(path, aResponse().withHeader("Content-Type", "application/json").withBody(json));
    }

    /** Answers {@code path} with {@code bytes}. */
    void bytes(String path, byte[] bytes) {
        answer(path, aResponse().withBody(bytes));
    }

    /** Answers {@code path} with {@code response}. */
    void answer(String path, ResponseDefinitionBuilder response) {
        tree.wireMock().stubFor(get(urlEqualTo(path)).willReturn(response));
    }

    /**
     * An index listing 1.0.0 and its version document with one archive, for {@code linux_amd64}, at {@code url}
     * (relative to the document) with {@code hashes} (the JSON array's content, such as {@code "zh:..."}).
     */
    void version(String type, String url, String hashes) {
        json(directory(type) + "index.json", "{\"versions\":{\"1.0.0\":{}}}");
        json(
                directory(type) + "1.0.0.json",
                "{\"archives\":{\"linux_amd64\":{\"url\":\"" + url + "\",\"hashes\":[" + hashes + "]}}}");
    }

    /** A child mirror caching in {@code cache}, whose parent for {@code example.test} is this tree. */
    MirrorFixture child(Path cache) {
        return MirrorFixture.builder(cache, tree)
                .set("upstream.hosts", Map.of(MirrorFixture.HOST, Map.of("mirrorUrl", tree.discoveryUrl() + "mirror/")))
                .start();
    }
}
