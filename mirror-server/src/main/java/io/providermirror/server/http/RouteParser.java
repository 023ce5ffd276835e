package io.providermirror.server.http;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.Optional;

/**
 * Turns a raw request path into a {@link Route}, validating every segment: the hostname as a DNS name (with
 * an optional port; normalised by {@link ProviderAddress}, so {@code host:443} routes as {@code host}), namespace and type as the CLI's provider names, the version as semver, and an archive's
 * file name as exactly the one this provider, version and platform would have.
 */
final class RouteParser {

    /** The base path of the provider mirror; modules can live beside it later. */
    static final String PROVIDERS = io.providermirror.server.status.CliConfigBlock.BASE_PATH;

    static final int MAX_PATH_LENGTH = 1024;
    /** Where the status page's view of one provider lives: {@code /status/providers/<hostname>/<namespace>/<type>}. */
    static final String PROVIDER_STATUS = io.providermirror.server.status.StatusPage.PROVIDER_PATH;

    /** Where the pages of the manual live: {@code /docs/<page>.md}. */
    static final String DOCS_PREFIX = "/docs/";

    private static final java.util.regex.Pattern DOCS_PAGE = java.util.regex.Pattern.compile("[a-z][a-z-]{0,39}");

    private static final String SHAPE = "expected /providers/<hostname>/<namespace>/<type>/index.json, "
            + "<version>.json or terraform-provider-<type>_<version>_<os>_<arch>.zip";

    /** The first segments of the mirror's own paths, which are never read as a provider's hostname. */
    private static final java.util.Set<String> OWN_FOLDERS = java.util.Set.of("providers", "registry", "status", "log");

    private RouteParser() {}

    static Route parse(String rawPath) {
        Route.Invalid malformed = malformedPath(rawPath);
        if (malformed != null) {
            return malformed;
        }
        switch (rawPath) {
            case "/", "/providers", PROVIDERS:
                return new Route.Home();
            case "/metrics":
                return new Route.Metrics();
            case "/status.json":
                return new Route.StatusJson();
            case "/healthz":
                return new Route.Health();
            case "/readyz":
                return new Route.Ready();
            case "/docs", "/docs/":
                return new Route.Docs("");
            case "/ca.pem":
                return new Route.CaCertificate();
            default:
                break;
        }
        if (rawPath.startsWith(DOCS_PREFIX)) {
            return docsPage(rawPath.substring(DOCS_PREFIX.length()));
        }
        if (rawPath.startsWith(RegistryDiscovery.PREFIX) && rawPath.endsWith(RegistryDiscovery.WELL_KNOWN)) {
            return RegistryDiscovery.parse(rawPath);
        }
        if (rawPath.startsWith(LogResponses.PREFIX)) {
            return LogResponses.route(rawPath.substring(LogResponses.PREFIX.length()));
        }
        if (rawPath.startsWith(ModuleRoutes.PREFIX) && rawPath.contains(ModuleRoutes.SERVICE)) {
            return ModuleRoutes.parse(rawPath);
        }
        if (rawPath.startsWith(ProviderRegistryRoutes.PREFIX) && rawPath.contains(ProviderRegistryRoutes.SERVICE)) {
            return ProviderRegistryRoutes.parse(rawPath);
        }
        if (rawPath.startsWith(PROVIDER_STATUS)) {
            return providerStatus(rawPath.substring(PROVIDER_STATUS.length()));
        }
        if (rawPath.startsWith(PROVIDERS)) {
            return mirrorPath(rawPath.substring(PROVIDERS.length()));
        }
        String[] segments =
                rawPath.isEmpty() ? new String[0] : rawPath.substring(1).split("/", -1);
        if (segments.length == 4
                && !OWN_FOLDERS.contains(segments[0])
                && ProviderAddress.isValidHostname(segments[0])) {
            return mirrorPath(rawPath.substring(1));
        }
        return new Route.Invalid(
                404, "nothing is served at " + rawPath + "; the provider mirror is under " + PROVIDERS);
    }

    /** Why {@code rawPath} is no path of the mirror's whatever it names (its length, its characters), or null. */
    static Route.Invalid malformedPath(String rawPath) {
        if (rawPath.length() > MAX_PATH_LENGTH) {
            return new Route.Invalid(400, "the request path is longer than " + MAX_PATH_LENGTH + " characters");
        }
        if (rawPath.indexOf('%') >= 0) {
            return new Route.Invalid(400, "percent-encoded characters are not valid in mirror paths");
        }
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c < 0x21 || c > 0x7e || c == '\\') {
                return new Route.Invalid(400, "the request path holds a character that is not valid in mirror paths");
            }
        }
        return null;
    }

    /**
     * {@code <hostname>/<namespace>/<type>/<file>}: the network mirror protocol's request below the base path, or
     * below {@code /} for a CLI whose {@code network_mirror} url lacks its trailing slash ({@code
     * https://mirror/providers} resolves the protocol's relative paths against {@code /}). Nothing else lives at
     * {@code /<hostname>/}, so that common slip is answered the same way, access control included.
     */
    private static Route mirrorPath(String rest) {
        String[] segments = rest.split("/", -1);
        if (segments.length != 4) {
            return new Route.Invalid(400, "malformed mirror path: " + SHAPE);
        }
        Optional<Route.Invalid> malformed = malformedAddress(segments[0], segments[1], segments[2]);
        if (malformed.isPresent()) {
            return malformed.get();
        }
        ProviderAddress address = new ProviderAddress(segments[0], segments[1], segments[2]);
        String file = segments[3];
        if (file.equals("index.json")) {
            return new Route.VersionIndex(address);
        }
        if (file.endsWith(".json")) {
            Optional<ProviderVersion> version =
                    ProviderVersion.parse(file.substring(0, file.length() - ".json".length()));
            return version.<Route>map(v -> new Route.VersionDocument(address, v))
                    .orElseGet(() -> new Route.Invalid(
                            400, "malformed version in '" + file + "': expected a semantic version such as 1.2.3"));
        }
        if (file.endsWith(".zip")) {
            return archive(address, file);
        }
        return new Route.Invalid(400, "malformed mirror path: " + SHAPE);
    }

    /** {@code <page>.md} below {@link #DOCS_PREFIX}: a page name of lower-case letters and dashes. */
    private static Route docsPage(String file) {
        String page = file.endsWith(".md") ? file.substring(0, file.length() - 3) : "";
        return DOCS_PAGE.matcher(page).matches()
                ? new Route.Docs(page)
                : new Route.Invalid(
                        400, "malformed manual path: expected /docs or /docs/<page>.md, e.g. /docs/using.md");
    }

    /** {@code <hostname>/<namespace>/<type>} below {@link #PROVIDER_STATUS}, each segment checked as for the mirror. */
    private static Route providerStatus(String rest) {
        String[] segments = rest.split("/", -1);
        if (segments.length != 3) {
            return new Route.Invalid(
                    400,
                    "malformed status path: expected " + PROVIDER_STATUS + "<hostname>/<namespace>/<type>, e.g. "
                            + PROVIDER_STATUS + "registry.terraform.io/hashicorp/aws");
        }
        Optional<Route.Invalid> malformed = malformedAddress(segments[0], segments[1], segments[2]);
        return malformed.isPresent()
                ? malformed.get()
                : new Route.ProviderStatus(new ProviderAddress(segments[0], segments[1], segments[2]));
    }

    /** Why {@code hostname}, {@code namespace} and {@code type} are not a provider address the CLI could use, if not. */
    static Optional<Route.Invalid> malformedAddress(String hostname, String namespace, String type) {
        if (!ProviderAddress.isValidHostname(hostname)) {
            return Optional.of(new Route.Invalid(
                    400,
                    "malformed hostname '" + hostname
                            + "': expected a lowercase DNS name in punycode, optionally with :port (an IPv4 address only as "
                            + "four decimal numbers such as 192.0.2.1)"));
        }
        if (!ProviderAddress.isValidName(namespace)) {
            return Optional.of(new Route.Invalid(
                    400,
                    "malformed provider namespace '" + namespace
                            + "': expected lowercase letters, digits, '-' or '_'"));
        }
        if (!ProviderAddress.isValidName(type)) {
            return Optional.of(new Route.Invalid(
                    400, "malformed provider type '" + type + "': expected lowercase letters, digits, '-' or '_'"));
        }
        return Optional.empty();
    }

    private static Route archive(ProviderAddress address, String file) {
        String prefix = "terraform-provider-" + address.type() + "_";
        String expected = "expected terraform-provider-" + address.type() + "_<version>_<os>_<arch>.zip";
        if (!file.startsWith(prefix)) {
            return new Route.Invalid(400, "archive name '" + file + "' does not match its provider: " + expected);
        }
        String middle = file.substring(prefix.length(), file.length() - ".zip".length());
        int archSeparator = middle.lastIndexOf('_');
        int osSeparator = archSeparator <= 0 ? -1 : middle.lastIndexOf('_', archSeparator - 1);
        if (osSeparator <= 0) {
            return new Route.Invalid(400, "malformed archive name '" + file + "': " + expected);
        }
        Optional<ProviderVersion> version = ProviderVersion.parse(middle.substring(0, osSeparator));
        if (version.isEmpty() || !version.get().canonical().equals(middle.substring(0, osSeparator))) {
            return new Route.Invalid(400, "malformed version in archive name '" + file + "': " + expected);
        }
        try {
            Platform platform =
                    new Platform(middle.substring(osSeparator + 1, archSeparator), middle.substring(archSeparator + 1));
            return new Route.Archive(address, version.get(), platform);
        } catch (IllegalArgumentException e) {
            return new Route.Invalid(400, "malformed platform in archive name '" + file + "': " + expected);
        }
    }
}
