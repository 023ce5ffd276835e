package io.providermirror.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Provider package zips for tests. {@code terraform init} never runs the provider, so the executable is any
 * bytes under the name the CLI expects; a directory entry and a second file make the {@code h1:} hash cover
 * more than one entry.
 */
public final class ProviderZips {

    private ProviderZips() {}

    /** A small package for {@code type} {@code version} on {@code platform}. */
    public static byte[] provider(String type, String version, String platform) {
        return provider(type, version, platform, 0);
    }

    /**
     * A package whose executable carries {@code payloadBytes} of incompressible bytes (stored, not deflated), so
     * the zip is about that large.
     */
    public static byte[] provider(String type, String version, String platform, int payloadBytes) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(payloadBytes + 1024);
            try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
                writeDocs(zip, type, version);
                String executable = executableName(type, version, platform);
                byte[] content = ("#!/bin/sh\necho fake provider " + type + " " + version + " " + platform + "\n")
                        .getBytes(StandardCharsets.UTF_8);
                if (payloadBytes > 0) {
                    byte[] payload = new byte[payloadBytes];
                    new Random(seed(version, platform)).nextBytes(payload);
                    System.arraycopy(content, 0, payload, 0, Math.min(content.length, payload.length));
                    content = payload;
                    ZipEntry entry = new ZipEntry(executable);
                    entry.setMethod(ZipEntry.STORED);
                    entry.setSize(content.length);
                    CRC32 crc = new CRC32();
                    crc.update(content);
                    entry.setCrc(crc.getValue());
                    zip.putNextEntry(entry);
                } else {
                    zip.putNextEntry(new ZipEntry(executable));
                }
                zip.write(content);
                zip.closeEntry();
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Writes a package like {@link #provider(String, String, String, int)} straight to {@code file}, however
     * large (a 1 GB archive for memory checks): the incompressible payload is generated twice in chunks, once
     * for the stored entry's CRC and once to write it, and never held whole.
     */
    public static void writeProvider(
            java.nio.file.Path file, String type, String version, String platform, long payloadBytes)
            throws IOException {
        String executable = executableName(type, version, platform);
        CRC32 crc = new CRC32();
        long seed = seed(version, platform);
        forEachPayloadChunk(seed, payloadBytes, (chunk, length) -> crc.update(chunk, 0, length));
        try (ZipOutputStream zip = new ZipOutputStream(
                new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(file), 1 << 20))) {
            writeDocs(zip, type, version);
            ZipEntry entry = new ZipEntry(executable);
            entry.setMethod(ZipEntry.STORED);
            entry.setSize(payloadBytes);
            entry.setCrc(crc.getValue());
            zip.putNextEntry(entry);
            forEachPayloadChunk(seed, payloadBytes, (chunk, length) -> zip.write(chunk, 0, length));
            zip.closeEntry();
        }
    }

    /**
     * Writes a package whose executable is deflated and compresses about as a real provider binary does (2-3x),
     * until the archive is about {@code archiveBytes}: the JDK's own {@code libjvm.so} and class library, over
     * and over (deflate looks back 32 KiB, so repeating them compresses no better). For measuring {@code h1:},
     * which must inflate what it hashes; {@link #writeProvider}'s payload is stored, incompressible bytes.
     */
    public static void writeDeflatedProvider(
            java.nio.file.Path file, String type, String version, String platform, long archiveBytes)
            throws IOException {
        java.nio.file.Path javaHome = java.nio.file.Path.of(System.getProperty("java.home"));
        java.nio.file.Path[] sources = {javaHome.resolve("lib/server/libjvm.so"), javaHome.resolve("lib/modules")};
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                        file,
                        java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
                        java.nio.file.StandardOpenOption.WRITE);
                ZipOutputStream zip = new ZipOutputStream(new java.io.BufferedOutputStream(
                        java.nio.channels.Channels.newOutputStream(channel), 1 << 20))) {
            writeDocs(zip, type, version);
            zip.putNextEntry(new ZipEntry(executableName(type, version, platform)));
            byte[] buffer = new byte[1 << 20];
            // The channel's size lags what the deflater holds by a buffer or two: close enough for a benchmark.
            while (channel.size() < archiveBytes) {
                long before = channel.size();
                long copied = 0;
                for (java.nio.file.Path source : sources) {
                    if (!java.nio.file.Files.isRegularFile(source)) {
                        continue;
                    }
                    try (java.io.InputStream in = java.nio.file.Files.newInputStream(source)) {
                        for (int n; channel.size() < archiveBytes && (n = in.read(buffer)) > 0; ) {
                            zip.write(buffer, 0, n);
                            copied += n;
                        }
                    }
                }
                if (copied == 0 && channel.size() == before) {
                    throw new IOException("no JDK files under " + javaHome + " to build a provider-like archive from");
                }
            }
            zip.closeEntry();
        }
    }

    /** The name the CLI expects the executable to have. */
    private static String executableName(String type, String version, String platform) {
        return "terraform-provider-" + type + "_v" + version + "_x5" + (platform.startsWith("windows_") ? ".exe" : "");
    }

    /** The payload of every package of one version and platform is the same pseudo-random bytes. */
    private static long seed(String version, String platform) {
        return 31L * version.hashCode() + platform.hashCode();
    }

    /** A directory entry and a README before the executable, so {@code h1:} covers more than one entry. */
    private static void writeDocs(ZipOutputStream zip, String type, String version) throws IOException {
        zip.putNextEntry(new ZipEntry("docs/"));
        zip.closeEntry();
        zip.putNextEntry(new ZipEntry("docs/README.md"));
        zip.write(("# terraform-provider-" + type + " " + version + "\n").getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
    }

    private interface ChunkConsumer {
        void accept(byte[] chunk, int length) throws IOException;
    }

    private static void forEachPayloadChunk(long seed, long payloadBytes, ChunkConsumer consumer) throws IOException {
        Random random = new Random(seed);
        byte[] chunk = new byte[1 << 20];
        for (long left = payloadBytes; left > 0; left -= chunk.length) {
            random.nextBytes(chunk);
            consumer.accept(chunk, (int) Math.min(chunk.length, left));
        }
    }
}
