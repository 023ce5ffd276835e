package io.providermirror.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The mirror's manual as the build packaged it: the README at {@code /docs} and each page of {@code docs/} at
 * {@code /docs/<page>.md}, served as text, since the networks the mirror lives in often cannot reach its website.
 *
 * @param pages the text of each page by its name ({@code ""} for the README)
 */
public record Manual(Map<String, byte[]> pages) {

    /** The pages of {@code docs/}, by name without {@code .md}; the README is {@code ""}. */
    public static final List<String> PAGE_NAMES = List.of(
            "install",
            "configuration",
            "using",
            "closed-network",
            "operations",
            "operator-api",
            "security",
            "transparency-log",
            "scaling",
            "troubleshooting",
            "performance",
            "testing");

    /** Where the build packages the README and the pages of {@code docs/} in the jar. */
    private static final String PACKAGED = "/provider-mirror/";

    public Manual {
        pages = Map.copyOf(pages);
    }

    /** The manual the build packaged into the jar; a build without it has one page saying so. */
    public static Manual packaged() throws IOException {
        Map<String, byte[]> pages = new HashMap<>();
        read(PACKAGED + "README.md").ifPresent(text -> pages.put("", text));
        for (String name : PAGE_NAMES) {
            read(PACKAGED + "docs/" + name + ".md").ifPresent(text -> pages.put(name, text));
        }
        pages.putIfAbsent(
                "",
                "This build carries no documentation; see the README of provider-mirror.\n"
                        .getBytes(StandardCharsets.UTF_8));
        return new Manual(pages);
    }

    private static Optional<byte[]> read(String resource) throws IOException {
        try (InputStream in = Manual.class.getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        }
    }

    /** The text of one page, when this build carries it. */
    public Optional<byte[]> page(String name) {
        return Optional.ofNullable(pages.get(name));
    }
}
