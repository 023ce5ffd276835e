package io.providermirror.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

final class VersionConstraintsTest {

    private static ProviderVersion v(String text) {
        return ProviderVersion.parse(text).orElseThrow();
    }

    private static List<String> matching(String constraint, String... versions) {
        VersionConstraints parsed = VersionConstraints.parse(constraint);
        return Stream.of(versions).filter(version -> parsed.matches(v(version))).toList();
    }

    @Test
    void versionsOrderBySemanticVersionPrecedence() {
        List<String> sorted = Stream.of(
                        "1.10.0",
                        "1.2.0",
                        "1.2.0-beta.2",
                        "1.2.0-beta.10",
                        "1.2.0-alpha",
                        "0.9.9",
                        "2.0.0",
                        "1.2.0-beta")
                .map(VersionConstraintsTest::v)
                .sorted()
                .map(ProviderVersion::canonical)
                .toList();
        assertThat(sorted)
                .containsExactly(
                        "0.9.9",
                        "1.2.0-alpha",
                        "1.2.0-beta",
                        "1.2.0-beta.2",
                        "1.2.0-beta.10",
                        "1.2.0",
                        "1.10.0",
                        "2.0.0");
    }

    @Test
    void comparisonOperatorsAndListsOfConditions() {
        String[] all = {"1.0.0", "1.5.0", "2.0.0", "2.1.0", "3.0.0"};
        assertThat(matching(">= 1.5, < 3.0.0", all)).containsExactly("1.5.0", "2.0.0", "2.1.0");
        assertThat(matching("!= 2.0.0", all)).containsExactly("1.0.0", "1.5.0", "2.1.0", "3.0.0");
        assertThat(matching("2.1.0", all)).containsExactly("2.1.0");
        assertThat(matching("= 1.0", all)).containsExactly("1.0.0");
        assertThat(matching("> 2.0.0", all)).containsExactly("2.1.0", "3.0.0");
        assertThat(matching("<= 1.5.0", all)).containsExactly("1.0.0", "1.5.0");
        assertThat(matching("", all)).containsExactly(all);
    }

    @Test
    void thePessimisticOperatorLetsOnlyTheRightmostPartGrow() {
        String[] all = {"1.0.3", "1.0.4", "1.0.10", "1.1.0", "1.9.0", "2.0.0"};
        assertThat(matching("~> 1.0.4", all)).containsExactly("1.0.4", "1.0.10");
        assertThat(matching("~> 1.1", all)).containsExactly("1.1.0", "1.9.0");
        assertThat(matching("~> 1", all)).containsExactly(all);
    }

    @Test
    void preReleasesMatchOnlyWhenNamedExactly() {
        assertThat(matching(">= 1.0.0", "1.1.0-beta.1", "1.1.0")).containsExactly("1.1.0");
        assertThat(matching("= 1.1.0-beta.1", "1.1.0-beta.1", "1.1.0")).containsExactly("1.1.0-beta.1");
    }

    @Test
    void malformedConstraintsSayWhichPartIsWrong() {
        assertThatThrownBy(() -> VersionConstraints.parse(">= 1.0, =< 2"))
                .hasMessageContaining("'=< 2' in version constraint '>= 1.0, =< 2'");
        assertThatThrownBy(() -> VersionConstraints.parse("latest")).hasMessageContaining("'latest'");
    }
}
