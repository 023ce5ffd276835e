package io.providermirror.server.warm;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What warm reads of the network mirror protocol's documents, {@code index.json} and {@code <version>.json}:
 * a running mirror answers warm with them over HTTP, so both targets read them the same way.
 */
final class MirrorProtocolDocuments {

    private MirrorProtocolDocuments() {}

    /** The versions an {@code index.json} lists ({@code {"versions":{"1.2.3":{}}}}), skipping any not semver. */
    static List<ProviderVersion> versions(JsonNode index) {
        List<ProviderVersion> versions = new ArrayList<>();
        index.path("versions")
                .fieldNames()
                .forEachRemaining(v -> ProviderVersion.parse(v).ifPresent(versions::add));
        return versions;
    }

    /** The platforms a version document has archives for. */
    static Set<Platform> platforms(JsonNode versionDocument) {
        Set<Platform> platforms = new TreeSet<>();
        versionDocument.path("archives").fieldNames().forEachRemaining(p -> platforms.add(Platform.parse(p)));
        return platforms;
    }
}
