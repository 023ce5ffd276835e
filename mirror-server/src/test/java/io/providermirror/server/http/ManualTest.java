package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The manual the mirror serves at {@code /docs} is the one in the repository, every page of it, linked whole. */
final class ManualTest {

    private static final Path DOCS = Path.of("..", "docs");
    private static final Pattern LOCAL_LINK = Pattern.compile("\\]\\(([a-z][a-z-]*)\\.md(#[a-z0-9-]+)?\\)");

    @Test
    void everyPageOfDocsIsServedAndNothingElse() throws IOException {
        try (Stream<Path> files = Files.list(DOCS)) {
            assertThat(files.map(file -> file.getFileName().toString())
                            .filter(name -> name.endsWith(".md"))
                            .map(name -> name.substring(0, name.length() - 3))
                            .collect(Collectors.toSet()))
                    .containsExactlyInAnyOrderElementsOf(Manual.PAGE_NAMES);
        }
    }

    @Test
    void everyLinkBetweenPagesNamesAPageAndAHeadingThatExist() throws IOException {
        for (String name : Manual.PAGE_NAMES) {
            Matcher link = LOCAL_LINK.matcher(Files.readString(DOCS.resolve(name + ".md")));
            while (link.find()) {
                Path target = DOCS.resolve(link.group(1) + ".md");
                assertThat(target).as(name + ".md links " + link.group()).exists();
                if (link.group(2) != null) {
                    assertThat(anchors(target))
                            .as(name + ".md links " + link.group())
                            .contains(link.group(2));
                }
            }
        }
    }

    /** GitHub's anchors: a heading in lower case, without punctuation, spaces as dashes. */
    private static java.util.Set<String> anchors(Path page) throws IOException {
        return Files.readAllLines(page).stream()
                .filter(line -> line.startsWith("#"))
                .map(line -> "#"
                        + line.replaceFirst("^#+ ", "")
                                .toLowerCase(java.util.Locale.ROOT)
                                .replaceAll("[^a-z0-9 -]", "")
                                .replace(' ', '-'))
                .collect(Collectors.toSet());
    }
}
