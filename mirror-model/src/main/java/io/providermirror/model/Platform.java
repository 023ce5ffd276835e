package io.providermirror.model;

import java.util.regex.Pattern;

/** A target platform such as {@code linux_amd64}: an operating system and an architecture. */
public record Platform(String os, String arch) implements Comparable<Platform> {

    private static final Pattern PART = Pattern.compile("[a-z0-9]{1,32}");

    public Platform {
        if (os == null || !PART.matcher(os).matches()) {
            throw new IllegalArgumentException("os: '" + os + "' (expected: lowercase letters and digits)");
        }
        if (arch == null || !PART.matcher(arch).matches()) {
            throw new IllegalArgumentException("arch: '" + arch + "' (expected: lowercase letters and digits)");
        }
    }

    /** Parses {@code os_arch}. */
    public static Platform parse(String platform) {
        int underscore = platform.indexOf('_');
        if (underscore < 0 || platform.indexOf('_', underscore + 1) >= 0) {
            throw new IllegalArgumentException("platform: '" + platform + "' (expected: os_arch, e.g. linux_amd64)");
        }
        return new Platform(platform.substring(0, underscore), platform.substring(underscore + 1));
    }

    @Override
    public int compareTo(Platform other) {
        return toString().compareTo(other.toString());
    }

    @Override
    public String toString() {
        return os + "_" + arch;
    }
}
