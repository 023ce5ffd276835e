package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.TokenHashes;
import io.providermirror.server.inventory.InventoryQuery;
import io.providermirror.server.report.StatusReports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operator API's handler in the server's pipeline: who decides reading while an operator request is on. */
final class OperatorApiHandlerTest {

    private static final String TOKEN = "operator-token";

    @TempDir
    Path uploads;

    /** The import's answer, completed by the test. */
    private final CompletableFuture<byte[]> imported = new CompletableFuture<>();

    /**
     * While an import runs, a change of writability (an answer streaming before it crossing the watermarks) is the
     * operator API's to act on: it reached the mirror's handler behind, which is not busy then and turned reading on,
     * so the next request was handed on and answered ahead of the import (and an upload could be read past its
     * bound on bytes waiting to be written). From a review.
     */
    @Test
    void aRequestBehindARunningImportWaitsForItsAnswerThroughAChangeOfWritability() throws Exception {
        try (ServerPipeline pipeline = ServerPipeline.behindTheDiscipline(
                new OperatorApiHandler(new OperatorApi(tokens(), new Imports(), noReports()), Runnable::run, false))) {
            pipeline.send("POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                    + "\r\nContent-Length: 5\r\n\r\nabcde");
            assertThat(pipeline.channel.config().isAutoRead())
                    .as("the import's answer is awaited")
                    .isFalse();

            pipeline.channel.pipeline().fireChannelWritabilityChanged();
            pipeline.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(pipeline.seen)
                    .as("nothing behind the import before its answer")
                    .isEmpty();

            imported.complete("{}".getBytes(StandardCharsets.UTF_8));
            pipeline.channel.runPendingTasks();
            assertThat(pipeline.seen).containsExactly("/next");
            pipeline.answer(HttpResponseStatus.NOT_FOUND, true);
            assertThat(pipeline.written()).startsWith("HTTP/1.1 200 OK\r\n").contains("HTTP/1.1 404 Not Found\r\n");
        }
    }

    /** Reports of nothing: the API is on only with some (the status routes are not asked here). */
    private static StatusReports noReports() {
        return new StatusReports(null, null, null, null, Map.of(), Clock.systemUTC(), null, null, null);
    }

    private static TokenHashes tokens() throws Exception {
        return TokenHashes.load(List.of(TokenHashes.hash(TOKEN)), null, "operator.tokensFile");
    }

    /**
     * Takes bundles into a temporary directory and answers an import when the test completes it; any other action
     * fails the test.
     */
    private final class Imports implements OperatorActions {
        @Override
        public Path uploadDirectory() {
            return uploads;
        }

        @Override
        public long maxBundleBytes() {
            return 1 << 20;
        }

        @Override
        public CompletableFuture<byte[]> importBundle(Path file) {
            return imported;
        }

        @Override
        public CompletableFuture<byte[]> acceptModule(ModuleAddress address, ProviderVersion version) {
            throw notAskedHere();
        }

        @Override
        public CompletableFuture<byte[]> purgeProvider(
                ProviderAddress address, ProviderVersion version, Set<Platform> platforms) {
            throw notAskedHere();
        }

        @Override
        public CompletableFuture<byte[]> purgeModule(ModuleAddress address, ProviderVersion version) {
            throw notAskedHere();
        }

        @Override
        public CompletableFuture<byte[]> inventory(InventoryQuery query) {
            throw notAskedHere();
        }

        /** Fails the test: only imports are asked for here, so another action reaching the API is a bug. */
        private AssertionError notAskedHere() {
            return new AssertionError("only an import is asked for in this test");
        }
    }
}
