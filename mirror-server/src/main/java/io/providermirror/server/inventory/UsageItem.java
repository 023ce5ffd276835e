package io.providermirror.server.inventory;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.Comparator;
import java.util.Locale;

/**
 * What the inventory counts requests of: a provider version on one platform ({@code platform} set), or a module
 * version ({@code platform} empty). The address is the canonical {@code host/namespace/type} or
 * {@code host/namespace/name/system} spelling, so every spelling a client used is one item.
 */
public record UsageItem(Kind kind, String address, ProviderVersion version, String platform) {

    /** Providers and modules. */
    public enum Kind {
        PROVIDER,
        MODULE;

        /** The name in answers and shards: {@code provider} or {@code module}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The kind {@link #label()} names. */
        public static Kind of(String label) {
            return valueOf(label.toUpperCase(Locale.ROOT));
        }
    }

    /** Answers' order: kind, address, newest version first, platform. */
    public static final Comparator<UsageItem> ORDER = Comparator.comparing(UsageItem::kind)
            .thenComparing(UsageItem::address)
            .thenComparing(UsageItem::version, Comparator.reverseOrder())
            .thenComparing(UsageItem::platform);

    public UsageItem {
        if (kind == null || address == null || version == null || platform == null) {
            throw new IllegalArgumentException("usage item: every part is required");
        }
        if (kind == Kind.MODULE != platform.isEmpty()) {
            throw new IllegalArgumentException(
                    "usage item: platform '" + platform + "' (expected: one for a provider, none for a module)");
        }
    }

    /** One platform of one version of a provider. */
    public static UsageItem provider(ProviderAddress address, ProviderVersion version, Platform platform) {
        return new UsageItem(Kind.PROVIDER, address.toString(), version, platform.toString());
    }

    /** One version of a module. */
    public static UsageItem module(ModuleAddress address, ProviderVersion version) {
        return new UsageItem(Kind.MODULE, address.toString(), version, "");
    }

    /**
     * The item an inventory shard names with these parts, each parsed as a request's is (a shard is read back from a
     * store other instances write to): a provider's address and platform, or a module's address and no platform.
     *
     * @throws IllegalArgumentException naming the part that is none
     */
    public static UsageItem parse(Kind kind, String address, ProviderVersion version, String platform) {
        if (kind == Kind.PROVIDER) {
            return provider(ProviderAddress.parse(address), version, Platform.parse(platform));
        }
        if (!platform.isEmpty()) {
            throw new IllegalArgumentException("usage item: platform '" + platform + "' (expected: none for a module)");
        }
        return module(ModuleAddress.parse(address), version);
    }

    /** The origin's hostname: the address's first part. */
    public String host() {
        int slash = address.indexOf('/');
        return slash < 0 ? address : address.substring(0, slash);
    }

    @Override
    public String toString() {
        return address + " " + version + (platform.isEmpty() ? "" : " " + platform);
    }
}
