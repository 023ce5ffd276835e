package io.providermirror.model;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The address of a registry module, {@code hostname/namespace/name/system} (e.g.
 * {@code registry.terraform.io/acme/hello/null}). The hostname follows {@link ProviderAddress}'s rules and is
 * normalised the same way. Namespace and name may be written in any case ({@code Azure/aks/azurerm}, as the CLI
 * sends a configuration's spelling), but registries compare them ignoring case, so they are kept in lowercase: every
 * spelling of one module is one address, with one policy decision, one pin and one place in the cache. The target
 * system is lowercase letters and digits only. Module versions are {@link ProviderVersion}s: the registry protocol
 * requires semantic versions for both.
 */
public record ModuleAddress(String hostname, String namespace, String name, String system) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?");
    private static final Pattern SYSTEM = Pattern.compile("[a-z0-9]{1,64}");

    public ModuleAddress {
        if (!ProviderAddress.isValidHostname(hostname)) {
            throw new IllegalArgumentException(
                    "hostname: '" + hostname + "' (expected: a lowercase DNS name in punycode, optionally with :port)");
        }
        hostname = ProviderAddress.normalizeHostname(hostname);
        if (!isValidName(namespace)) {
            throw new IllegalArgumentException("module namespace: '" + namespace
                    + "' (expected: letters, digits, '-' or '_', at most 64 characters)");
        }
        if (!isValidName(name)) {
            throw new IllegalArgumentException(
                    "module name: '" + name + "' (expected: letters, digits, '-' or '_', at most 64 characters)");
        }
        namespace = namespace.toLowerCase(Locale.ROOT);
        name = name.toLowerCase(Locale.ROOT);
        if (system == null || !SYSTEM.matcher(system).matches()) {
            throw new IllegalArgumentException("module target system: '" + system
                    + "' (expected: lowercase letters and digits, at most 64 characters)");
        }
    }

    /** Parses {@code hostname/namespace/name/system}. */
    public static ModuleAddress parse(String address) {
        String[] parts = address.split("/", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException(
                    "module address: '" + address + "' (expected: hostname/namespace/name/system)");
        }
        return new ModuleAddress(parts[0], parts[1], parts[2], parts[3]);
    }

    /** True when {@code name} is a valid module namespace or name. */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches() && !name.contains("--");
    }

    /** The path of this module beneath a {@code modules.v1} base: {@code namespace/name/system}. */
    public String registryPath() {
        return namespace + "/" + name + "/" + system;
    }

    @Override
    public String toString() {
        return hostname + "/" + registryPath();
    }
}
