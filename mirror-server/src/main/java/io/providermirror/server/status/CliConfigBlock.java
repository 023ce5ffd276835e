package io.providermirror.server.status;

/**
 * The blocks a user pastes into their CLI configuration to use this mirror: {@code provider_installation} for
 * providers, and a {@code host} block per registry host for its modules.
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

    /** The registry hosts every mirror routes modules for, before the configured ones. */
    public static final java.util.List<String> PUBLIC_REGISTRIES =
            java.util.List.of("registry.terraform.io", "registry.opentofu.org");

    /**
     * The {@code host} blocks that route the module registry of each of {@code hostnames} (the public registries
     * first, then those given, each once) to the mirror at {@code https://<authority>}.
     */
    public static String hostBlocks(String authority, java.util.Collection<String> hostnames) {
        java.util.Set<String> hosts = new java.util.LinkedHashSet<>(PUBLIC_REGISTRIES);
        hosts.addAll(hostnames);
        StringBuilder blocks = new StringBuilder();
        for (String host : hosts) {
            blocks.append("host \"")
                    .append(host)
                    .append("\" {\n")
                    .append("  services = {\n")
                    .append("    \"modules.v1\" = \"https://")
                    .append(authority)
                    .append("/registry/")
                    .append(host)
                    .append("/modules.v1/\"\n")
                    .append("  }\n")
                    .append("}\n");
        }
        return blocks.toString();
    }
}
