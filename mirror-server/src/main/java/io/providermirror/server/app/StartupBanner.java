package io.providermirror.server.app;

import io.providermirror.server.BuildInfo;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.status.CliConfigBlock;

/** What the mirror prints when it is up: where it is, what to trust, and the CLI block to paste. */
public final class StartupBanner {

    private StartupBanner() {}

    /** The banner for a started {@code application} with {@code config}. */
    public static String render(MirrorApplication application, MirrorConfig config) {
        // The first server.publicUrl, else this machine's name when the certificate names it (else localhost).
        String authority =
                config.server().advertisedAuthority(application.coveredHostName() + ":" + application.port());
        StringBuilder out = new StringBuilder();
        out.append("\nprovider-mirror ")
                .append(BuildInfo.VERSION)
                .append(" is serving on ")
                .append(config.server().host())
                .append(':')
                .append(application.port())
                .append('\n');
        if (config.server().plainHttp()) {
            out.append("  plain HTTP (server.plainHttp): clients reach it through a TLS-terminating load balancer;\n")
                    .append(
                            "             the CLI accepts only https:// mirror URLs, so use the balancer's in the block below\n");
        } else {
            out.append("  base URL:  https://")
                    .append(authority)
                    .append(CliConfigBlock.BASE_PATH)
                    .append('\n');
        }
        application
                .managementPort()
                .ifPresent(port -> out.append("  management: http://")
                        .append(config.management().host())
                        .append(':')
                        .append(port)
                        .append(" (/metrics, /healthz, /readyz)\n"));
        out.append("  cache:     ").append(application.cacheDirectory()).append('\n');
        if (config.upstream().offline()) {
            out.append("  OFFLINE:   upstream.offline is on: only what is cached is served; no origin is contacted\n");
        }
        originsReachedAt(config)
                .forEach((hostname, where) -> out.append("  origin:    ")
                        .append(hostname)
                        .append(" -> ")
                        .append(where)
                        .append('\n'));
        out.append("  network:   ").append(application.transport()).append('\n');
        out.append("  log key:   ")
                .append(application.core().log().verifierKey())
                .append("\n             (the transparency log at /log/ is signed with it: docs/transparency-log.md)\n");
        application.generatedCaFile().ifPresent(ca -> {
            out.append("  TLS:       a certificate signed by this mirror's own CA, which can sign only for\n")
                    .append("             ")
                    .append(application
                            .generatedCa()
                            .map(generated -> String.join(", ", generated.signsFor()) + " (until "
                                    + generated.notAfter().toString().substring(0, 10) + ")")
                            .orElse("this mirror's names"))
                    .append(":\n");
            out.append("             ").append(ca.toAbsolutePath()).append('\n');
            out.append(
                    "             Clients must trust that CA: add it to the system trust store, or for a quick try\n");
            out.append("             export SSL_CERT_FILE=")
                    .append(ca.toAbsolutePath())
                    .append("   (note: this replaces the default CA bundle for that shell)\n");
        });
        out.append(
                "\nPut this in ~/.terraformrc (Terraform), ~/.tofurc (OpenTofu) or the file named by TF_CLI_CONFIG_FILE:\n\n");
        out.append(CliConfigBlock.forAuthority(authority));
        out.append(
                        "\nTo install registry modules through the mirror too (no git, no access to their sources), add these\n")
                .append("host blocks. Leave out the provider_installation block above and providers install through\n")
                .append(
                        "them as well, by the registry protocol: the CLI then checks the origin's signature itself and\n")
                .append("records zh: hashes for every platform in .terraform.lock.hcl, not only h1: for this one:\n\n");
        out.append(
                CliConfigBlock.hostBlocks(authority, config.upstream().hosts().keySet(), parentMirrorHosts(config)));
        if (config.auth().enabled()) {
            out.append(
                            "\nAccess control is on (auth): every client needs a token from this mirror's operators, in the\n")
                    .append("same file: the first block for the network mirror, the others for the host blocks:\n\n")
                    .append(CliConfigBlock.credentialsBlocks(
                            authority, config.upstream().hosts().keySet()));
        }
        return out.toString();
    }

    /** The configured hosts reached through a parent network mirror (upstream.hosts.*.mirrorUrl). */
    public static java.util.Set<String> parentMirrorHosts(MirrorConfig config) {
        java.util.Set<String> hosts = new java.util.TreeSet<>();
        config.upstream().hosts().forEach((hostname, settings) -> {
            if (settings.mirrorUrl() != null) {
                hosts.add(hostname);
            }
        });
        return hosts;
    }

    /**
     * Each configured origin with where it is reached: {@code network mirror <url>}, {@code discovery at <url>}, or
     * discovered at its own name; in the configuration's order.
     */
    static java.util.Map<String, String> originsReachedAt(MirrorConfig config) {
        java.util.Map<String, String> origins = new java.util.LinkedHashMap<>();
        config.upstream()
                .hosts()
                .forEach((hostname, settings) -> origins.put(
                        hostname,
                        settings.mirrorUrl() != null
                                ? "network mirror " + settings.mirrorUrl()
                                : settings.discoveryUrl() != null
                                        ? "discovery at " + settings.discoveryUrl()
                                        : "discovered at https://" + hostname + "/.well-known/terraform.json"));
        return origins;
    }
}
