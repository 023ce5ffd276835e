package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class PackageHashesTest {

    @TempDir
    Path tmp;

    record Vector(String file, String h1, String zh) {
    }

    static Stream<Vector> terraformVectors() throws IOException {
        try (InputStream in = PackageHashesTest.class.getResourceAsStream("/hash-vectors/expected.txt")) {
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
            assertThat(lines).hasSize(4);
            return lines.stream().map(l -> l.split(" ")).map(p -> new Vector(p[0], p[1], p[2]));
        }
    }

    private Path resource(String file) throws IOException {
        Path target = tmp.resolve(file);
        try (InputStream in = getClass().getResourceAsStream("/hash-vectors/" + file)) {
            Files.copy(in, target);
        }
        return target;
    }

    @ParameterizedTest
    @MethodSource("terraformVectors")
    void h1MatchesWhatTerraformComputed(Vector vector) throws IOException {
        assertThat(PackageHashes.h1(resource(vector.file()))).isEqualTo(vector.h1());
    }

    @ParameterizedTest
    @MethodSource("terraformVectors")
    void zhIsTheSha256OfTheWholeZip(Vector vector) throws IOException {
        byte[] zip = Files.readAllBytes(resource(vector.file()));
        assertThat(PackageHashes.zh(PackageHashes.sha256().digest(zip))).isEqualTo(vector.zh());
    }

    @Test
    void refusesZipsWithMoreEntriesThanTheLimit() throws IOException {
        Path zip = zip("many.zip", "a", "b", "c");
        assertThatThrownBy(() -> PackageHashes.h1(zip, new PackageHashes.Limits(2, 1_000)))
                .isInstanceOf(IOException.class).hasMessageContaining("more than 2 entries");
    }

    @Test
    void refusesZipsThatExpandBeyondTheLimit() throws IOException {
        Path zip = tmp.resolve("bomb.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.putNextEntry(new ZipEntry("zeros"));
            out.write(new byte[100_000]);
            out.closeEntry();
        }
        assertThat(Files.size(zip)).isLessThan(1_000);
        assertThatThrownBy(() -> PackageHashes.h1(zip, new PackageHashes.Limits(10, 50_000)))
                .isInstanceOf(IOException.class).hasMessageContaining("expands to more than 50000 bytes");
    }

    @Test
    void refusesEntryNamesWithNewlines() throws IOException {
        Path zip = zip("newline.zip", "bad\nname");
        assertThatThrownBy(() -> PackageHashes.h1(zip)).isInstanceOf(IOException.class).hasMessageContaining("newline");
    }

    private Path zip(String name, String... entries) throws IOException {
        Path zip = tmp.resolve(name);
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (String entry : entries) {
                out.putNextEntry(new ZipEntry(entry));
                out.write(entry.getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return zip;
    }
}
