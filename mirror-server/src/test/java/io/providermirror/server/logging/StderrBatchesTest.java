package io.providermirror.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Standard error in batches: whole lines per write, and a refused write neither repeated nor the end of the log. */
final class StderrBatchesTest {

    /** An output that refuses its first write after {@link #refuseNext} is set, having taken part of it. */
    private static final class Refusing extends OutputStream {
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();
        boolean refuseNext;
        int writes;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            writes++;
            if (refuseNext) {
                refuseNext = false;
                taken.write(b, off, Math.min(len, 3));
                throw new IOException("Resource temporarily unavailable");
            }
            taken.write(b, off, len);
        }

        String text() {
            return taken.toString(StandardCharsets.UTF_8);
        }
    }

    private static byte[] line(String text) {
        return (text + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void linesGatherUntilFlushedAndLeaveInOneWrite() {
        Refusing stderr = new Refusing();
        StderrBatches batches = new StderrBatches(stderr);

        batches.write(line("one"), 0, 4);
        batches.write(line("two"), 0, 4);
        assertThat(stderr.writes).isZero();
        batches.flush();

        assertThat(stderr.writes).isEqualTo(1);
        assertThat(stderr.text()).isEqualTo("one\ntwo\n");
    }

    @Test
    void aRefusedWriteLosesWhatTheBufferHeldOnceAndTheNextLinesStillLeave() {
        Refusing stderr = new Refusing();
        StderrBatches batches = new StderrBatches(stderr);
        batches.write(line("lost"), 0, 5);
        stderr.refuseNext = true;

        batches.flush();
        batches.write(line("next"), 0, 5);
        batches.flush();
        batches.close();

        assertThat(stderr.text()).as("never written twice").isEqualTo("losnext\n");
        assertThat(batches.lost()).isEqualTo(1);
    }

    @Test
    void aLineThatDoesNotFitWritesOutTheWholeLinesBeforeIt() {
        Refusing stderr = new Refusing();
        StderrBatches batches = new StderrBatches(stderr);
        byte[] first = line("a".repeat(StderrBatches.SIZE - 100));
        byte[] second = line("b".repeat(200));

        batches.write(first, 0, first.length);
        batches.write(second, 0, second.length);

        assertThat(stderr.writes).isEqualTo(1);
        assertThat(stderr.text()).isEqualTo(new String(first, StandardCharsets.UTF_8));
    }
}
