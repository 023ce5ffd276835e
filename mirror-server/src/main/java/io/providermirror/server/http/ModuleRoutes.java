package io.providermirror.server.http;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.ArchiveType;
import java.util.Optional;

/**
 * The module registry protocol's paths on the mirror: {@code /registry/<hostname>/modules.v1/} followed by
 * {@code <namespace>/<name>/<system>/versions}, {@code .../<version>/download} or the mirror's own
 * {@code .../<version>/module.<extension>}; every segment validated as the module registry's names.
 */
final class ModuleRoutes {

    static final String PREFIX = "/registry/";
    static final String SERVICE = "/modules.v1/";

    private static final String SHAPE =
            "expected /registry/<hostname>/modules.v1/ followed by nothing, search, <namespace>, <namespace>/<name>, "
                    + "<namespace>/<name>/<system> with nothing, /versions, /download, /<version>, "
                    + "/<version>/download or /<version>/module.<extension>";

    private ModuleRoutes() {}

    /** The base path of the module registry of {@code hostname} on the mirror. */
    static String base(String hostname) {
        return PREFIX + hostname + SERVICE;
    }

    static Route parse(String rawPath) {
        String rest = rawPath.substring(PREFIX.length());
        int service = rest.indexOf(SERVICE);
        String hostname = rest.substring(0, service);
        if (!ProviderAddress.isValidHostname(hostname)) {
            return new Route.Invalid(
                    400,
                    "malformed hostname '" + hostname + "': expected a lowercase DNS name in punycode, optionally with "
                            + ":port");
        }
        String[] segments = rest.substring(service + SERVICE.length()).split("/", -1);
        Optional<Route> api = ModuleApiRoutes.parse(hostname, segments);
        if (api.isPresent()) {
            return api.get();
        }
        if (segments.length != 4 && segments.length != 5) {
            return new Route.Invalid(400, "malformed module registry path: " + SHAPE);
        }
        ModuleAddress address;
        try {
            address = new ModuleAddress(hostname, segments[0], segments[1], segments[2]);
        } catch (IllegalArgumentException e) {
            return new Route.Invalid(400, "malformed module address: " + e.getMessage());
        }
        if (segments.length == 4) {
            return segments[3].equals("versions")
                    ? new Route.ModuleVersions(address)
                    : new Route.Invalid(400, "malformed module registry path: " + SHAPE);
        }
        Optional<ProviderVersion> version = ProviderVersion.parse(segments[3]);
        if (version.isEmpty() || !version.get().toString().equals(segments[3])) {
            return new Route.Invalid(
                    400, "malformed module version '" + segments[3] + "': expected a semantic version such as 1.2.3");
        }
        String file = segments[4];
        if (file.equals("download")) {
            return new Route.ModuleDownload(address, version.get());
        }
        for (ArchiveType type : ArchiveType.values()) {
            if (file.equals("module." + type.extension())) {
                return new Route.ModuleArchive(address, version.get(), type.extension());
            }
        }
        return new Route.Invalid(400, "malformed module registry path: " + SHAPE);
    }
}
