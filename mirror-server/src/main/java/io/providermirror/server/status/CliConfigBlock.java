package io.providermirror.server.status;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The blocks a user pastes into their CLI configuration to use this mirror: {@code provider_installation} for
 * providers through the network mirror protocol, and a {@code host} block per registry host for its modules and
 * for providers through the registry protocol (the providers.v1 face).
 */
public final class CliConfigBlock {

    /** The mirror's base path. */
    public static final String BASE_PATH = "/providers/";

    private CliConfigBlock() {}

    /** The block for a mirror reached at {@code https://<authority>}. */
    public static String forAuthority(String authority) {
        return "provider_installation {\n"
                + "  network_mirror {\n"
                + "    url = \"https://" + authority + BASE_PATH + "\"\n"
                + "  }\n"
                + "}\n";
    }

    /** The registry hosts every mirror routes modules and providers for, before the configured ones. */
    public static final List<String> PUBLIC_REGISTRIES = List.of("registry.terraform.io", "registry.opentofu.org");

    /**
     * The {@code host} blocks that route the registry services of each of {@code hostnames} (the public registries
     * first, then those given, each once) to the mirror at {@code https://<authority>}: {@code providers.v1} and
     * {@code modules.v1}, or only {@code modules.v1} for the hosts in {@code parentMirrorHosts}, whose packages
     * reach the mirror without their origin's signature and so cannot be offered through {@code providers.v1}.
     */
    public static String hostBlocks(
            String authority, Collection<String> hostnames, Collection<String> parentMirrorHosts) {
        Set<String> hosts = new LinkedHashSet<>(PUBLIC_REGISTRIES);
        hosts.addAll(hostnames);
        StringBuilder blocks = new StringBuilder();
        for (String host : hosts) {
            blocks.append("host \"").append(host).append("\" {\n").append("  services = {\n");
            boolean providers = !parentMirrorHosts.contains(host);
            if (providers) {
                service(blocks, authority, host, "providers.v1", "");
            }
            // Aligned under providers.v1, as terraform fmt writes it.
            service(blocks, authority, host, "modules.v1", providers ? "  " : "");
            blocks.append("  }\n").append("}\n");
        }
        return blocks.toString();
    }

    /**
     * The registry URL of each routed host on the mirror at {@code https://<authority>} (the public registries first,
     * then {@code hostnames}, each once), for tools that read a registry themselves: {@code
     * https://<authority>/registry/<host>}, whose discovery document names the mirror's services for that host.
     */
    public static List<String> registryUrls(String authority, Collection<String> hostnames) {
        Set<String> hosts = new LinkedHashSet<>(PUBLIC_REGISTRIES);
        hosts.addAll(hostnames);
        return hosts.stream()
                .map(host -> "https://" + authority + "/registry/" + host)
                .toList();
    }

    /**
     * With access control on: the {@code credentials} blocks the CLI needs, one for the mirror itself (the network
     * mirror protocol) and one per routed registry host (through {@code host} blocks the CLI sends the token of
     * the registry host it routes).
     */
    public static String credentialsBlocks(String authority, Collection<String> hostnames) {
        Set<String> hosts = new LinkedHashSet<>();
        hosts.add(authority);
        hosts.addAll(PUBLIC_REGISTRIES);
        hosts.addAll(hostnames);
        StringBuilder blocks = new StringBuilder();
        for (String host : hosts) {
            blocks.append("credentials \"")
                    .append(host)
                    .append("\" {\n")
                    .append("  token = \"<your token for this mirror>\"\n")
                    .append("}\n");
        }
        return blocks.toString();
    }

    private static void service(StringBuilder blocks, String authority, String host, String service, String pad) {
        blocks.append("    \"")
                .append(service)
                .append('"')
                .append(pad)
                .append(" = \"https://")
                .append(authority)
                .append("/registry/")
                .append(host)
                .append('/')
                .append(service)
                .append("/\"\n");
    }
}
