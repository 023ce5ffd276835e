package io.providermirror.server.http;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;

/** What a request path asks for. */
sealed interface Route {

    /** The name of a route, as the request meter's {@code route} tag gives it. */
    static String name(Route route) {
        if (route instanceof Home || route instanceof ProviderStatus || route instanceof StatusJson) {
            return "status";
        } else if (route instanceof CaCertificate) {
            return "ca";
        } else if (route instanceof Metrics) {
            return "metrics";
        } else if (route instanceof Health) {
            return "healthz";
        } else if (route instanceof Ready) {
            return "readyz";
        } else if (route instanceof Docs) {
            return "docs";
        } else if (route instanceof VersionIndex) {
            return "index";
        } else if (route instanceof VersionDocument) {
            return "version";
        } else if (route instanceof Archive) {
            return "archive";
        } else if (route instanceof ModuleVersions) {
            return "module_versions";
        } else if (route instanceof ModuleDownload) {
            return "module_download";
        } else if (route instanceof ModuleArchive) {
            return "module_archive";
        } else if (route instanceof RegistryDiscovery) {
            return "registry_discovery";
        } else if (route instanceof ModuleApi api) {
            return api.request().routeName();
        } else if (route instanceof RegistryVersions) {
            return "provider_versions";
        } else if (route instanceof RegistryDownload) {
            return "provider_download";
        } else if (route instanceof RegistryChecksums checksums) {
            return checksums.file() == ChecksumFile.SHA256SUMS ? "provider_shasums" : "provider_signature";
        } else if (route instanceof Log) {
            return "log";
        }
        return "invalid";
    }

    /** True for the routes the plain-HTTP management listener answers. */
    static boolean isOperational(Route route) {
        return route instanceof Metrics || route instanceof Health || route instanceof Ready;
    }

    /** The status page at {@code /} and at the mirror's base URL. */
    record Home() implements Route {}

    /** {@code /status.json}: the status page's data as JSON, for scripts. */
    record StatusJson() implements Route {}

    /** {@code /status/providers/:hostname/:namespace/:type}: the status page's view of one cached provider. */
    record ProviderStatus(ProviderAddress address) implements Route {}

    /** {@code /ca.pem}: the CA certificate the mirror generated for itself, which clients must trust. */
    record CaCertificate() implements Route {}

    /** {@code /metrics}: every meter in the Prometheus text format. */
    record Metrics() implements Route {}

    /** {@code /healthz}: the process is alive. */
    record Health() implements Route {}

    /** {@code /readyz}: the mirror can take traffic. */
    record Ready() implements Route {}

    /**
     * {@code /docs} (the README, {@code page} empty) and {@code /docs/<page>.md}: this mirror's manual, for networks
     * that cannot reach the internet.
     */
    record Docs(String page) implements Route {}

    /** {@code :hostname/:namespace/:type/index.json}. */
    record VersionIndex(ProviderAddress address) implements Route {}

    /** {@code :hostname/:namespace/:type/:version.json}. */
    record VersionDocument(ProviderAddress address, ProviderVersion version) implements Route {}

    /** {@code :hostname/:namespace/:type/terraform-provider-:type_:version_:os_:arch.zip}. */
    record Archive(ProviderAddress address, ProviderVersion version, Platform platform) implements Route {}

    /**
     * A registry face's document that the CLI asks for through a {@code host} block: it sends the credentials of the
     * registry host the block routes ({@link #registryHost()}), not the mirror's.
     */
    sealed interface RegistryDocument extends Route {
        String registryHost();
    }

    /** {@code /registry/:hostname/modules.v1/:namespace/:name/:system/versions}. */
    record ModuleVersions(ModuleAddress address) implements RegistryDocument {
        @Override
        public String registryHost() {
            return address.hostname();
        }
    }

    /** {@code /registry/:hostname/modules.v1/:namespace/:name/:system/:version/download}. */
    record ModuleDownload(ModuleAddress address, ProviderVersion version) implements RegistryDocument {
        @Override
        public String registryHost() {
            return address.hostname();
        }
    }

    /** {@code /registry/:hostname/modules.v1/:namespace/:name/:system/:version/module.:extension}. */
    record ModuleArchive(ModuleAddress address, ProviderVersion version, String extension) implements Route {}

    /**
     * {@code /registry/:hostname/.well-known/terraform.json}: the discovery document of the mirror's registry
     * services for {@code hostname}, for tools given {@code https://<mirror>/registry/<hostname>} as a registry URL.
     */
    record RegistryDiscovery(String hostname) implements Route {}
    /** A request of the full module registry API beside the protocol ({@link ModuleApiRoutes}). */
    record ModuleApi(ModuleApiRoutes.Request request) implements RegistryDocument {
        @Override
        public String registryHost() {
            return request.hostname();
        }
    }

    /** {@code /registry/:hostname/providers.v1/:namespace/:type/versions}: the providers.v1 face's version list. */
    record RegistryVersions(ProviderAddress address) implements RegistryDocument {
        @Override
        public String registryHost() {
            return address.hostname();
        }
    }

    /** {@code /registry/:hostname/providers.v1/:namespace/:type/:version/download/:os/:arch}. */
    record RegistryDownload(ProviderAddress address, ProviderVersion version, Platform platform)
            implements RegistryDocument {
        @Override
        public String registryHost() {
            return address.hostname();
        }
    }

    /** The two files a providers.v1 download document names besides the archive, both the origin's exact bytes. */
    enum ChecksumFile {
        /** {@code .../download/:os/:arch/SHA256SUMS}. */
        SHA256SUMS,
        /** {@code .../download/:os/:arch/SHA256SUMS.sig}: the origin's detached signature over it. */
        SIGNATURE
    }

    /** A providers.v1 download's SHA256SUMS or its signature, as the origin published them. */
    record RegistryChecksums(ProviderAddress address, ProviderVersion version, Platform platform, ChecksumFile file)
            implements Route {}

    /** A path that names nothing here: 404 when it is outside the mirror's paths, 400 when it is malformed. */
    record Invalid(int status, String message) implements Route {}

    /** The transparency log below {@code /log/}: its checkpoint (no tile), or a tile or entry bundle. */
    record Log(java.util.Optional<io.providermirror.server.tlog.TileName> tile) implements Route {}
}
