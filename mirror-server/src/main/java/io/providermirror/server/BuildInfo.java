package io.providermirror.server;

import java.util.Optional;

/** What this build is: its version, as the jar's manifest records it ({@code dev} when run from classes). */
public final class BuildInfo {

    /** The version of this build, shown in the banner, the status page, {@code --version} and the User-Agent. */
    public static final String VERSION = Optional.ofNullable(
                    BuildInfo.class.getPackage().getImplementationVersion())
            .orElse("dev");

    private BuildInfo() {}
}
