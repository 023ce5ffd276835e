package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link RenderedAnswers}: an answer per source object, compared by identity, bounded, and gone with its source. */
final class RenderedAnswersTest {

    private final AtomicInteger renders = new AtomicInteger();

    private RenderedDocument render(List<String> source) {
        renders.incrementAndGet();
        return new RenderedDocument(String.join(",", source).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theSameSourceObjectReusesItsAnswerAndAnEqualNewOneIsRenderedAgain() {
        RenderedAnswers<List<String>> answers = new RenderedAnswers<>(10);
        List<String> list = new ArrayList<>(List.of("1.0.0", "1.1.0"));

        RenderedDocument first = answers.get(list, this::render);
        assertThat(answers.get(list, this::render)).isSameAs(first);
        assertThat(renders).hasValue(1);

        // A refresh makes a new object, equal or not: it is rendered anew.
        List<String> refreshed = new ArrayList<>(list);
        assertThat(answers.get(refreshed, this::render)).isNotSameAs(first);
        assertThat(renders).hasValue(2);
    }

    @Test
    void answersAreBoundedAndLiveNoLongerThanTheirSources() {
        RenderedAnswers<List<String>> answers = new RenderedAnswers<>(3);
        List<List<String>> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            List<String> source = new ArrayList<>(List.of(String.valueOf(i)));
            held.add(source);
            answers.get(source, this::render);
        }
        // Every source is still held: only the bound removed answers.
        assertThat(held).hasSize(10);
        assertThat(answers.size()).isLessThanOrEqualTo(3);

        held.clear();
        await().until(() -> {
            System.gc();
            return answers.size() == 0;
        });
    }
}
