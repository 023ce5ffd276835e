package io.providermirror.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a cold fill does with each chunk of an archive, in chunk bytes per second (the {@code chunkBytes} counter):
 * its parts on the direct buffer TLS decrypted into (sha256, the file write), and the two ways round whole: the JDK
 * client's (the chunk copied into an array, hashed from there, written from the array, which the JDK copies into a
 * direct buffer of its own) against Netty's (hashed and written from the direct buffer). It shows where a fill's time
 * per byte goes: sha256, not the copies. The file is rewritten in place (64 MiB, page cache): no disk is measured.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ArchiveChunkBenchmark {

    private static final long FILE_BYTES = 64L * 1024 * 1024;

    /** The size of one chunk: a TLS record, and what one socket read often brings. */
    @Param({"16384", "65536"})
    public int chunkBytes;

    private ByteBuffer direct;
    private byte[] array;
    private MessageDigest sha256;
    private Path file;
    private FileChannel channel;
    private long position;

    /** Chunk bytes processed, which JMH reports per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counter {
        public long chunkBytes;
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException, NoSuchAlgorithmException {
        array = new byte[chunkBytes];
        ThreadLocalRandom.current().nextBytes(array);
        direct = ByteBuffer.allocateDirect(chunkBytes).put(array);
        sha256 = MessageDigest.getInstance("SHA-256");
        file = Files.createTempFile("provider-mirror-bench", ".chunks");
        channel = FileChannel.open(file, StandardOpenOption.WRITE);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        channel.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    public void sha256Direct(Counter counter) {
        sha256.update(direct.clear());
        counter.chunkBytes += chunkBytes;
    }

    @Benchmark
    public void writeDirect(Counter counter) throws IOException {
        write(direct.clear());
        counter.chunkBytes += chunkBytes;
    }

    /** The JDK client's way: the decrypted chunk copied into the reader's array, hashed, written from the array. */
    @Benchmark
    public void throughArray(Counter counter) throws IOException {
        direct.clear().get(array);
        sha256.update(array, 0, chunkBytes);
        write(ByteBuffer.wrap(array, 0, chunkBytes));
        counter.chunkBytes += chunkBytes;
    }

    /** Netty's way: hashed and written from the direct buffer the chunk was decrypted into. */
    @Benchmark
    public void fromDirectBuffer(Counter counter) throws IOException {
        ByteBuffer chunk = direct.clear();
        sha256.update(chunk);
        write(chunk.flip());
        counter.chunkBytes += chunkBytes;
    }

    private void write(ByteBuffer bytes) throws IOException {
        if (position + bytes.remaining() > FILE_BYTES) {
            position = 0;
        }
        while (bytes.hasRemaining()) {
            position += channel.write(bytes, position);
        }
    }
}
