package io.providermirror.bench;

import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code h1:} against plain sha256 over the same archive file, reported as archive bytes per second (the
 * {@code archiveBytes} counter). The archive is the one named by {@code -Dbench.archive=}, else a provider-like
 * zip made here: a deflated executable built from the JDK's own {@code libjvm.so} and class library (native code
 * and data that compress about as much as a Go provider binary, 2-3x), about 64 MB uncompressed, and a README.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
public class HashingBenchmark {

    private static final long UNCOMPRESSED = 64L * 1024 * 1024;

    private Path archive;
    private boolean generated;
    private long size;

    /** Archive bytes processed, which JMH reports per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counter {
        public long archiveBytes;
    }

    @Setup(Level.Trial)
    public void archive() throws IOException {
        String given = System.getProperty("bench.archive");
        if (given != null) {
            archive = Path.of(given);
        } else {
            archive = Files.createTempFile("provider-mirror-bench", ".zip");
            generated = true;
            writeProviderLikeZip(archive);
        }
        size = Files.size(archive);
        System.out.printf("%narchive: %s, %d bytes%n", archive, size);
    }

    @TearDown(Level.Trial)
    public void remove() throws IOException {
        if (generated) {
            Files.deleteIfExists(archive);
        }
    }

    @Benchmark
    public String h1(Counter counter) throws IOException {
        String h1 = PackageHashes.h1(archive);
        counter.archiveBytes += size;
        return h1;
    }

    @Benchmark
    public byte[] sha256(Counter counter) throws IOException {
        MessageDigest digest = PackageHashes.sha256();
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(archive)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        counter.archiveBytes += size;
        return digest.digest();
    }

    private static void writeProviderLikeZip(Path zip) throws IOException {
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path[] sources = {javaHome.resolve("lib/server/libjvm.so"), javaHome.resolve("lib/modules")};
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.putNextEntry(new ZipEntry("README.md"));
            out.write("# terraform-provider-bench\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.closeEntry();
            out.putNextEntry(new ZipEntry("terraform-provider-bench_v1.0.0_x5"));
            long written = 0;
            byte[] buffer = new byte[1 << 20];
            while (written < UNCOMPRESSED) {
                long before = written;
                for (Path source : sources) {
                    if (!Files.isRegularFile(source)) {
                        continue;
                    }
                    try (InputStream in = Files.newInputStream(source)) {
                        for (int n; written < UNCOMPRESSED && (n = in.read(buffer)) > 0; ) {
                            int take = (int) Math.min(n, UNCOMPRESSED - written);
                            out.write(buffer, 0, take);
                            written += take;
                        }
                    }
                }
                if (written == before) {
                    throw new IOException("no JDK files to build a benchmark archive from; pass -Dbench.archive=");
                }
            }
            out.closeEntry();
        }
    }
}
