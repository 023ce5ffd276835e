package io.providermirror.server.http;

import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.inventory.UsageItem;

/**
 * What the inventory counts as a use: an archive answered to a GET, once per download. A HEAD, or a range that
 * continues a download (one not starting at byte 0), is no new use; version lists and documents are not counted
 * (a client asks for them on every {@code init}, whatever it then installs).
 */
final class InventoryRecording {

    private InventoryRecording() {}

    static void requested(UsageInventory inventory, Exchange exchange, UsageItem item) {
        if (exchange.head()
                || exchange.range() != null && !exchange.range().strip().startsWith("bytes=0-")) {
            return;
        }
        inventory.record(item, exchange.client());
    }
}
