package io.providermirror.server.http;

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

    public Manual {
        pages = Map.copyOf(pages);
    }

    /** The text of one page, when this build carries it. */
    public Optional<byte[]> page(String name) {
        return Optional.ofNullable(pages.get(name));
    }
}
