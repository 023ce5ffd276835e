package io.providermirror.server.logging;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The access log's way to standard error: lines gather in a buffer of {@link #SIZE} bytes and leave in one write
 * when {@link AccessLogAppender} has written a batch (or when the next line would not fit), instead of one system
 * call per line. Each line arrives in one piece (its encoder's bytes), so every write holds whole lines, and no
 * more than {@code PIPE_BUF} bytes: a pipe's reader (a container runtime, the journal) never sees them interleaved
 * with another thread's line. Closing it writes out what it holds and leaves standard error open for the rest of
 * the process.
 */
final class StderrBatches extends BufferedOutputStream {

    /** At most this many bytes leave in one write: Linux's {@code PIPE_BUF}, the most a pipe writes atomically. */
    static final int SIZE = 4096;

    StderrBatches() {
        this(new FileOutputStream(FileDescriptor.err));
    }

    StderrBatches(OutputStream out) {
        super(out, SIZE);
    }

    @Override
    public void close() throws IOException {
        flush();
    }
}
