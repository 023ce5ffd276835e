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

    @Override
    public String toString() {
        return address + " " + version + (platform.isEmpty() ? "" : " " + platform);
    }
}
