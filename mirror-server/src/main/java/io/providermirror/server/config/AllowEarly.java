package io.providermirror.server.config;

import io.providermirror.model.ProviderVersion;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * An exception to the release-age quarantine ({@code policy.allowEarly}): one exact version of one provider or
 * module, let in before it is old enough, for a {@code reason} (an urgent fix), until {@code expires} (a date, the
 * end of that day in UTC, or an instant). After that the version is held as any other until it ages in.
 */
public record AllowEarly(String provider, String module, String version, String reason, String expires) {

    public AllowEarly {
        if ((provider == null) == (module == null)) {
            throw new IllegalArgumentException(
                    "allowEarly: an exception names either a provider or a module (expected: exactly one)");
        }
        if (provider != null) {
            provider = new ProviderRule(provider, null).provider();
            if (provider.contains("*") || provider.contains("?")) {
                throw new IllegalArgumentException("provider: '" + provider + "' (expected: an exact address)");
            }
        } else {
            module = new ModuleRule(module, null).module();
            if (module.contains("*") || module.contains("?")) {
                throw new IllegalArgumentException("module: '" + module + "' (expected: an exact address)");
            }
        }
        if (version == null || ProviderVersion.parse(version).isEmpty()) {
            throw new IllegalArgumentException(
                    "version: '" + version + "' (expected: one exact version such as 5.31.1)");
        }
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("reason: missing (expected: why this version may come in early)");
        }
        expiresAt(expires);
    }

    /** The address, {@code hostname/namespace/type} or {@code hostname/namespace/name/system}. */
    public String address() {
        return provider != null ? provider : module;
    }

    /** When the exception ends. */
    public Instant expiresAt() {
        return expiresAt(expires);
    }

    private static Instant expiresAt(String expires) {
        if (expires == null || expires.isBlank()) {
            throw new IllegalArgumentException("expires: missing (expected: a date such as 2026-12-31)");
        }
        try {
            return LocalDate.parse(expires)
                    .plusDays(1)
                    .atStartOfDay(ZoneOffset.UTC)
                    .toInstant();
        } catch (DateTimeParseException notDate) {
            try {
                return Instant.parse(expires);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("expires: '" + expires
                        + "' (expected: a date such as 2026-12-31 or an instant such as " + "2026-12-31T12:00:00Z)");
            }
        }
    }
}
