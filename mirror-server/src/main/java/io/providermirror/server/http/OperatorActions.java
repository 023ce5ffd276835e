package io.providermirror.server.http;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.inventory.InventoryQuery;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * What the operator API does, beside the running mirror's stores: what {@code import}, {@code modules accept} and
 * {@code inventory} do on a stopped one. Each answer is the JSON document the API returns; a refusal completes exceptionally with
 * {@link Refused}.
 */
public interface OperatorActions {

    /** Where a bundle's body is written before it is imported: inside the cache's own area, never elsewhere. */
    Path uploadDirectory();

    /** The largest bundle an import takes, in bytes. */
    long maxBundleBytes();

    /** Imports the bundle in {@code file} (which the caller deletes afterwards); answers what it carried and added. */
    CompletableFuture<byte[]> importBundle(Path file);

    /** Releases the pin of {@code version} of {@code address}, as {@code modules accept} does. */
    CompletableFuture<byte[]> acceptModule(ModuleAddress address, ProviderVersion version);

    /**
     * Purges {@code version} of {@code address} (every version when null), or only the archives of {@code platforms}
     * when some are named; answers what went. A 404 when the cache holds nothing of it.
     */
    CompletableFuture<byte[]> purgeProvider(
            io.providermirror.model.ProviderAddress address,
            ProviderVersion version,
            java.util.Set<io.providermirror.model.Platform> platforms);

    /** Purges a module version (its pin too); a 404 when the cache holds nothing of it. */
    CompletableFuture<byte[]> purgeModule(ModuleAddress address, ProviderVersion version);

    /** The fleet's usage inventory, the items {@code query} selects, as {@code GET /api/v1/inventory} answers it. */
    CompletableFuture<byte[]> inventory(InventoryQuery query);

    /** A request the operator API refuses (a bundle that does not verify, a version without a pin): 4xx and why. */
    final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final int status;

        public Refused(int status, String message) {
            super(message);
            if (status < 400 || status > 499) {
                throw new IllegalArgumentException("status: " + status + " (expected: 4xx)");
            }
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
