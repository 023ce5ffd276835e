package io.providermirror.server.inventory;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.VersionConstraints;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which items of the inventory an answer lists: those under an address ({@code hashicorp/aws} is on the default
 * host, {@code registry.terraform.io/hashicorp} every provider and module of that namespace), whose version meets a
 * constraint in Terraform's syntax (as in the CLI, a pre-release only when named exactly; without a constraint every
 * version, pre-releases too), and that a client name requested. Each part is optional.
 */
public record InventoryQuery(Optional<String> address, VersionConstraints version, Optional<String> client) {

    /** The host an address without one is on, as in the CLI. */
    public static final String DEFAULT_HOST = "registry.terraform.io";

    /** Every item. */
    public static final InventoryQuery ALL =
            new InventoryQuery(Optional.empty(), VersionConstraints.ANY, Optional.empty());

    /**
     * The query the parameters ask for ({@code address}, {@code version}, {@code client}; blank means absent).
     *
     * @throws IllegalArgumentException naming the parameter that is wrong, and what it expects
     */
    public static InventoryQuery parse(String address, String version, String client) {
        VersionConstraints constraints;
        try {
            constraints = VersionConstraints.parse(version);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("version: " + e.getMessage());
        }
        return new InventoryQuery(present(address).map(InventoryQuery::addressPrefix), constraints, present(client));
    }

    /** {@link #parse} of a query string's parameters (each at most once). */
    public static InventoryQuery parse(Map<String, List<String>> parameters) {
        for (Map.Entry<String, List<String>> parameter : parameters.entrySet()) {
            if (!List.of("address", "version", "client").contains(parameter.getKey())) {
                throw new IllegalArgumentException(
                        "unknown parameter '" + parameter.getKey() + "' (expected: address, version, client)");
            }
            if (parameter.getValue().size() > 1) {
                throw new IllegalArgumentException(parameter.getKey() + ": given more than once");
            }
        }
        return parse(one(parameters, "address"), one(parameters, "version"), one(parameters, "client"));
    }

    private static String one(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    private static Optional<String> present(String text) {
        return text == null || text.isBlank() ? Optional.empty() : Optional.of(text.strip());
    }

    /** The canonical prefix of {@code text}: lower case, the default host added when the first part is no host. */
    private static String addressPrefix(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        while (lower.endsWith("/")) {
            lower = lower.substring(0, lower.length() - 1);
        }
        String[] parts = lower.split("/", -1);
        boolean hasHost = parts[0].contains(".") || parts[0].contains(":") || parts[0].equals("localhost");
        if (hasHost && !ProviderAddress.isValidHostname(parts[0])) {
            throw new IllegalArgumentException("address: malformed hostname '" + parts[0]
                    + "' (expected: a lowercase DNS name, optionally with :port)");
        }
        for (int i = hasHost ? 1 : 0; i < parts.length; i++) {
            if (!ProviderAddress.isValidName(parts[i])) {
                throw new IllegalArgumentException("address: malformed part '" + parts[i]
                        + "' of '" + text + "' (expected: host/namespace/type or host/namespace/name/system, or its "
                        + "beginning; without a host, " + DEFAULT_HOST + ")");
            }
        }
        if (parts.length > (hasHost ? 4 : 3)) {
            throw new IllegalArgumentException(
                    "address: '" + text + "' has too many parts (expected: at most " + "host/namespace/name/system)");
        }
        return hasHost
                ? ProviderAddress.normalizeHostname(parts[0]) + lower.substring(parts[0].length())
                : DEFAULT_HOST + "/" + lower;
    }

    /** True when {@code item}, requested as {@code usage} says, is one this query lists. */
    public boolean matches(UsageItem item, Usage usage) {
        return address.map(prefix ->
                                item.address().equals(prefix) || item.address().startsWith(prefix + "/"))
                        .orElse(true)
                && (version.conditions().isEmpty() || version.matches(item.version()))
                && client.map(usage.clients()::containsKey).orElse(true);
    }

    /** The items of {@code inventory} this query lists, in the answers' order. */
    public List<Map.Entry<UsageItem, Usage>> select(Map<UsageItem, Usage> inventory) {
        return inventory.entrySet().stream()
                .filter(e -> matches(e.getKey(), e.getValue()))
                .sorted(Map.Entry.comparingByKey(UsageItem.ORDER))
                .toList();
    }

    /**
     * The {@code n} items of {@code inventory} requested most ({@link MostRequested}: ties, the one requested last
     * first).
     */
    public static List<Map.Entry<UsageItem, Usage>> top(Map<UsageItem, Usage> inventory, int n) {
        return MostRequested.rank(inventory, Optional::of, UsageItem.ORDER, n).stream()
                .map(item -> Map.entry(item, inventory.get(item)))
                .toList();
    }
}
