package io.providermirror.server.logging;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The access log's way to standard error: lines gather in a buffer of {@link #SIZE} bytes and leave in one write
 * when {@link AccessLogAppender} has written a batch (or when the next line would not fit), instead of one system
 * call per line. Each line arrives in one piece (its encoder's bytes), so every write holds whole lines, and a
 * write of lines shorter than {@code PIPE_BUF} is one a pipe's reader (a container runtime, the journal) never sees
 * interleaved with another thread's line. As {@code System.err} does, it never fails: a write that standard error
 * refuses loses what the buffer held (never writes it twice) and the next lines are written as usual, rather than
 * Logback's appender stopping the access log for good. Closing it writes out what it holds and leaves standard
 * error open for the rest of the process.
 */
final class StderrBatches extends BufferedOutputStream {

    /** At most this many bytes leave in one write: Linux's {@code PIPE_BUF}, the most a pipe writes atomically. */
    static final int SIZE = 4096;

    private long lost;

    StderrBatches() {
        this(new FileOutputStream(FileDescriptor.err));
    }

    StderrBatches(OutputStream out) {
        super(out, SIZE);
    }

    @Override
    public synchronized void write(int b) {
        try {
            super.write(b);
        } catch (IOException e) {
            dropBuffered();
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        try {
            super.write(b, off, len);
        } catch (IOException e) {
            dropBuffered();
        }
    }

    @Override
    public synchronized void flush() {
        try {
            super.flush();
        } catch (IOException e) {
            dropBuffered();
        }
    }

    @Override
    public void close() {
        flush();
    }

    /** How many times standard error refused a write (what the buffer held then was lost). */
    synchronized long lost() {
        return lost;
    }

    private void dropBuffered() {
        count = 0;
        lost++;
    }
}
