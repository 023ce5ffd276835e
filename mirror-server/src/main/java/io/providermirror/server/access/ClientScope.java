package io.providermirror.server.access;

import io.providermirror.server.core.ProviderPolicy;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a named client may reach: globs over origin hosts and over provider and module namespaces, as policy rules
 * write their parts ({@code *} any characters, {@code ?} one, ignoring case). An empty list limits nothing, so a
 * scope of two empty lists reaches everything. A value: equal when its globs are.
 */
public final class ClientScope {

    /** No limit. */
    public static final ClientScope EVERYTHING = new ClientScope(List.of(), List.of());

    private final List<String> hosts;
    private final List<String> namespaces;
    private final List<Pattern> hostPatterns;
    private final List<Pattern> namespacePatterns;

    public ClientScope(List<String> hosts, List<String> namespaces) {
        this.hosts = List.copyOf(hosts);
        this.namespaces = List.copyOf(namespaces);
        this.hostPatterns = this.hosts.stream().map(ProviderPolicy::glob).toList();
        this.namespacePatterns =
                this.namespaces.stream().map(ProviderPolicy::glob).toList();
    }

    /** The host globs; empty for every host. */
    public List<String> hosts() {
        return hosts;
    }

    /** The namespace globs; empty for every namespace. */
    public List<String> namespaces() {
        return namespaces;
    }

    /** True when this scope limits nothing. */
    public boolean unlimited() {
        return hosts.isEmpty() && namespaces.isEmpty();
    }

    /** Whether {@code host} is one this scope reaches. */
    public boolean allowsHost(String host) {
        return matchesAny(hostPatterns, host);
    }

    /**
     * Whether {@code namespace} of {@code host} is reached; an empty namespace stands for every namespace of the
     * host (a listing or search over all of them), which only a scope without namespace limits reaches.
     */
    public boolean allows(String host, Optional<String> namespace) {
        return allowsHost(host)
                && namespace.map(value -> matchesAny(namespacePatterns, value)).orElse(namespaces.isEmpty());
    }

    /** What this scope reaches, in words for a refusal: {@code hosts registry.terraform.io; namespaces acme}. */
    public String describe() {
        if (unlimited()) {
            return "every host and namespace";
        }
        return "hosts " + (hosts.isEmpty() ? "(any)" : String.join(", ", hosts)) + "; namespaces "
                + (namespaces.isEmpty() ? "(any)" : String.join(", ", namespaces));
    }

    private static boolean matchesAny(List<Pattern> patterns, String value) {
        if (patterns.isEmpty()) {
            return true;
        }
        for (Pattern pattern : patterns) {
            if (pattern.matcher(value).matches()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClientScope scope && hosts.equals(scope.hosts) && namespaces.equals(scope.namespaces);
    }

    @Override
    public int hashCode() {
        return hosts.hashCode() * 31 + namespaces.hashCode();
    }

    @Override
    public String toString() {
        return describe();
    }
}
