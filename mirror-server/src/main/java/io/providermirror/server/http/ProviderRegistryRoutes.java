package io.providermirror.server.http;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.Optional;

/**
 * The providers.v1 face's paths on the mirror: {@code /registry/<hostname>/providers.v1/} followed by the
 * provider registry protocol's {@code <namespace>/<type>/versions} and {@code <namespace>/<type>/<version>/download/
 * <os>/<arch>}, and the mirror's own {@code .../download/<os>/<arch>/SHA256SUMS} and {@code SHA256SUMS.sig}; every
 * segment validated as on the network mirror's paths. Also writes the URLs a download document names, relative
 * to the document's own URL, so the face works behind a reverse proxy that adds a path prefix.
 */
final class ProviderRegistryRoutes {

    static final String PREFIX = "/registry/";
    static final String SERVICE = "/providers.v1/";

    private static final String SHAPE = "expected /registry/<hostname>/providers.v1/<namespace>/<type>/versions or "
            + ".../<version>/download/<os>/<arch>";
    private static final String SHA256SUMS = "SHA256SUMS";
    private static final String SIGNATURE = "SHA256SUMS.sig";
    /**
     * From a download document's URL ({@code /registry/<h>/providers.v1/<ns>/<type>/<version>/download/<os>/<arch>})
     * up to the root its path starts from: eight directories.
     */
    private static final String TO_ROOT = "../".repeat(8);

    private ProviderRegistryRoutes() {}

    /** The base path of the providers.v1 face of {@code hostname} on the mirror. */
    static String base(String hostname) {
        return PREFIX + hostname + SERVICE;
    }

    static Route parse(String rawPath) {
        String rest = rawPath.substring(PREFIX.length());
        int service = rest.indexOf(SERVICE);
        String hostname = rest.substring(0, service);
        String[] segments = rest.substring(service + SERVICE.length()).split("/", -1);
        if (segments.length != 3 && segments.length != 6 && segments.length != 7) {
            return new Route.Invalid(400, "malformed provider registry path: " + SHAPE);
        }
        Optional<Route.Invalid> malformed = RouteParser.malformedAddress(hostname, segments[0], segments[1]);
        if (malformed.isPresent()) {
            return malformed.get();
        }
        ProviderAddress address = new ProviderAddress(hostname, segments[0], segments[1]);
        if (segments.length == 3) {
            return segments[2].equals("versions")
                    ? new Route.RegistryVersions(address)
                    : new Route.Invalid(400, "malformed provider registry path: " + SHAPE);
        }
        Optional<ProviderVersion> version = ProviderVersion.parse(segments[2]);
        if (version.isEmpty() || !version.get().canonical().equals(segments[2])) {
            return new Route.Invalid(
                    400,
                    "malformed version '" + segments[2]
                            + "': expected a semantic version in its full form, such as 1.2.0");
        }
        if (!segments[3].equals("download")) {
            return new Route.Invalid(400, "malformed provider registry path: " + SHAPE);
        }
        Platform platform;
        try {
            platform = new Platform(segments[4], segments[5]);
        } catch (IllegalArgumentException e) {
            return new Route.Invalid(
                    400,
                    "malformed platform '" + segments[4] + "/" + segments[5]
                            + "': expected an os and an architecture such as linux/amd64");
        }
        if (segments.length == 6) {
            return new Route.RegistryDownload(address, version.get(), platform);
        }
        return switch (segments[6]) {
            case SHA256SUMS ->
                new Route.RegistryChecksums(address, version.get(), platform, Route.ChecksumFile.SHA256SUMS);
            case SIGNATURE ->
                new Route.RegistryChecksums(address, version.get(), platform, Route.ChecksumFile.SIGNATURE);
            default -> new Route.Invalid(400, "malformed provider registry path: " + SHAPE);
        };
    }

    /**
     * The URLs a download document names for {@code route}'s package, relative to the document's URL:
     * the network mirror's archive URL (the one archive URL of this package on the mirror), and the SHA256SUMS and
     * signature beneath the document; each with {@code query} (a signed query, or empty).
     */
    static DownloadUrls urls(Route.RegistryDownload route, String query) {
        String suffix = query.isEmpty() ? "" : "?" + query;
        ProviderAddress address = route.address();
        Platform platform = route.platform();
        String archive = TO_ROOT
                + RouteParser.PROVIDERS.substring(1)
                + address.hostname() + "/" + address.namespace() + "/" + address.type() + "/terraform-provider-"
                + address.type() + "_" + route.version() + "_" + platform + ".zip";
        return new DownloadUrls(
                archive + suffix,
                platform.arch() + "/" + SHA256SUMS + suffix,
                platform.arch() + "/" + SIGNATURE + suffix);
    }

    /** The three URLs of a providers.v1 download document, as written into it. */
    record DownloadUrls(String archive, String sha256Sums, String signature) {}
}
