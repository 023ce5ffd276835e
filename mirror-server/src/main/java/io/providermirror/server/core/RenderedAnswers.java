package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.Function;

/**
 * The one way a rendered answer is kept: the document rendered from a source object (a version list, a published
 * package) is reused while that same object is the source, compared by identity, as the source is replaced (a
 * refresh, a read back from the cache) rather than changed. Weak keys: an answer lives no longer than its source is
 * held elsewhere (the source's own cache bounds the memory), and {@code maxAnswers} bounds it too.
 */
public final class RenderedAnswers<S> {

    // Weak keys compare with ==. Maintenance runs on the requesting thread: it is cheap.
    private final Cache<S, RenderedDocument> answers;

    /** @param maxAnswers the most answers kept at once */
    public RenderedAnswers(long maxAnswers) {
        this.answers = Caffeine.newBuilder()
                .weakKeys()
                .maximumSize(maxAnswers)
                .executor(Runnable::run)
                .build();
    }

    /** The answer rendered from {@code source}: rendered by {@code render} the first time, the same bytes after. */
    public RenderedDocument get(S source, Function<S, RenderedDocument> render) {
        return answers.get(source, render);
    }

    /** How many answers are kept now. */
    public long size() {
        answers.cleanUp();
        return answers.estimatedSize();
    }
}
