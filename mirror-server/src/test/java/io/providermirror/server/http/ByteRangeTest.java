package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class ByteRangeTest {

    @Test
    void singleRangesResolveAgainstTheSize() {
        assertThat(ByteRange.parse("bytes=0-99", 1000)).isEqualTo(new ByteRange.Outcome.Partial(new ByteRange(0, 99)));
        assertThat(ByteRange.parse("bytes=900-", 1000))
                .isEqualTo(new ByteRange.Outcome.Partial(new ByteRange(900, 999)));
        assertThat(ByteRange.parse("bytes=-100", 1000))
                .isEqualTo(new ByteRange.Outcome.Partial(new ByteRange(900, 999)));
        assertThat(ByteRange.parse("bytes=990-2000", 1000))
                .isEqualTo(new ByteRange.Outcome.Partial(new ByteRange(990, 999)));
        assertThat(ByteRange.parse("bytes=-5000", 1000))
                .isEqualTo(new ByteRange.Outcome.Partial(new ByteRange(0, 999)));
    }

    @Test
    void rangesBeyondTheEndAreUnsatisfiable() {
        assertThat(ByteRange.parse("bytes=1000-", 1000)).isInstanceOf(ByteRange.Outcome.Unsatisfiable.class);
        assertThat(ByteRange.parse("bytes=-0", 1000)).isInstanceOf(ByteRange.Outcome.Unsatisfiable.class);
    }

    @Test
    void anythingElseServesTheWhole() {
        assertThat(ByteRange.parse(null, 1000)).isInstanceOf(ByteRange.Outcome.Whole.class);
        assertThat(ByteRange.parse("bytes=0-1,5-6", 1000)).isInstanceOf(ByteRange.Outcome.Whole.class);
        assertThat(ByteRange.parse("items=0-1", 1000)).isInstanceOf(ByteRange.Outcome.Whole.class);
        assertThat(ByteRange.parse("bytes=5-1", 1000)).isInstanceOf(ByteRange.Outcome.Whole.class);
        assertThat(ByteRange.parse("bytes=-", 1000)).isInstanceOf(ByteRange.Outcome.Whole.class);
        assertThat(ByteRange.parse("bytes=99999999999999999999-", 1000)).isInstanceOf(ByteRange.Outcome.Whole.class);
    }
}
