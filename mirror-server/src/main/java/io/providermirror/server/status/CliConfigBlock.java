package io.providermirror.server.status;

/** The {@code provider_installation} block a user pastes into their CLI configuration to use this mirror. */
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
}
