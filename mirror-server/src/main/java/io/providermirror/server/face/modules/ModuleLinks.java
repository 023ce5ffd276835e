package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The mirror's own addresses that full module registry API answers carry instead of an origin's: a version's
 * {@code source} is its download route on the mirror, and paging links ({@code next_url}, {@code prev_url}) are the
 * mirror's paths, relative to its authority as the public registry writes them.
 *
 * @param mirrorUrl the scheme and authority clients reach the mirror by, e.g. {@code https://mirror.corp:8443}
 */
public record ModuleLinks(String mirrorUrl) {

    /** The path of the module registry of {@code hostname} on the mirror. */
    public static String basePath(String hostname) {
        return "/registry/" + hostname + "/modules.v1/";
    }

    /** The path of a version's {@code download} on the mirror. */
    public static String downloadPath(ModuleAddress address, ProviderVersion version) {
        return basePath(address.hostname()) + address.registryPath() + "/" + version + "/download";
    }

    /** The absolute URL of a version's {@code download} on the mirror: what {@code source} says. */
    String download(ModuleAddress address, ProviderVersion version) {
        return mirrorUrl + downloadPath(address, version);
    }

    /** The mirror's path of {@code path} (below the host's base) with {@code parameters}: a paging link. */
    static String page(String hostname, String path, Map<String, String> parameters) {
        StringJoiner query = new StringJoiner("&", "?", "");
        parameters.forEach((name, value) -> query.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return basePath(hostname) + path + (parameters.isEmpty() ? "" : query.toString());
    }
}
