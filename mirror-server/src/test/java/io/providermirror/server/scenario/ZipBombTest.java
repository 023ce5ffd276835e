package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * An archive checked by its {@code h1:} hash is unpacked to compute it; one that unpacks to far more than any
 * provider (a zip bomb, from a parent mirror an attacker controls) is a verification failure, and nothing of
 * it is cached.
 */
final class ZipBombTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aZipBombFromAParentMirrorIsRefusedWithAClearReasonAndNotCached() throws Exception {
        byte[] bomb = zeros(64 * 1024 * 1024);
        assertThat(bomb.length).isLessThan(100_000);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(events);
        try (FakeOrigin tree = FakeOrigin.start(tmp.resolve("tree"))) {
            String dir = StaticParentMirror.directory("bomb");
            String file = "terraform-provider-bomb_1.0.0_linux_amd64.zip";
            StaticParentMirror parent = new StaticParentMirror(tree);
            parent.version("bomb", file, "\"h1:" + "A".repeat(43) + "=\"");
            parent.bytes(dir + file, bomb);
            try (MirrorFixture child = parent.child(tmp.resolve("child"))) {
                String path = child.providerPath("acme", "bomb") + file;
                for (int attempt = 0; attempt < 2; attempt++) {
                    try {
                        HttpResponse<byte[]> refused = child.get(path);
                        assertThat(refused.statusCode()).isEqualTo(502);
                        assertThat(JSON.readTree(refused.body())
                                        .get("errors")
                                        .get(0)
                                        .asText())
                                .contains("acme/bomb")
                                .contains("cannot be hashed")
                                .contains("zip bomb");
                    } catch (IOException aborted) {
                        // The transfer to the client had begun: it is cut short, which tells the client too.
                        assertThat(aborted).isNotNull();
                    }
                }
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertThat(events.list.stream().map(ILoggingEvent::getFormattedMessage))
                                .anySatisfy(line -> assertThat(line)
                                        .contains("acme/bomb")
                                        .contains("cannot be hashed")
                                        .contains("zip bomb")));
                assertThat(tree.requestsMatching(dir + file))
                        .as("fetched again: nothing was cached")
                        .isEqualTo(2);
                try (Stream<Path> files = Files.walk(child.cacheDirectory.resolve("archives"))) {
                    assertThat(files.filter(p -> p.toString().contains("bomb") && Files.isRegularFile(p)))
                            .isEmpty();
                }
            }
        } finally {
            root.detachAppender(events);
        }
    }

    private static byte[] zeros(int bytes) throws IOException {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(zip)) {
            out.setLevel(9);
            out.putNextEntry(new ZipEntry("terraform-provider-bomb_v1.0.0"));
            byte[] chunk = new byte[1024 * 1024];
            for (int written = 0; written < bytes; written += chunk.length) {
                out.write(chunk);
            }
            out.closeEntry();
        }
        return zip.toByteArray();
    }
}
