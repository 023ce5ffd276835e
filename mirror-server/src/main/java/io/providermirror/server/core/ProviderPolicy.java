package io.providermirror.server.core;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.model.VersionConstraints;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ProviderRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Decides what the mirror lets in: deny rules refuse what they match; when allow rules exist, only what one
 * of them matches comes in; only the configured platforms are served. A refusal names the rule, so the
 * person who meets it knows which line of the configuration to talk about.
 */
public final class ProviderPolicy {

    /** Everything allowed: no rules, every platform. */
    public static final ProviderPolicy OPEN = new ProviderPolicy(new PolicyConfig(null, null, null, null));

    private record Rule(String name, Pattern[] parts, VersionConstraints versions, boolean anyVersion, String text) {
        boolean matches(ProviderAddress address) {
            return parts[0].matcher(address.hostname()).matches()
                    && parts[1].matcher(address.namespace()).matches()
                    && parts[2].matcher(address.type()).matches();
        }

        boolean matches(ProviderAddress address, ProviderVersion version) {
            return matches(address) && (anyVersion || versions.matches(version));
        }
    }

    private final List<Rule> allow;
    private final List<Rule> deny;
    private final Set<String> platforms;
    private final PolicyHolds holds;

    public ProviderPolicy(PolicyConfig config) {
        this(config, new PolicyHolds(java.time.Clock.systemUTC()));
    }

    /** @param holds where what a deny rule refuses is recorded for the status page */
    public ProviderPolicy(PolicyConfig config, PolicyHolds holds) {
        this.allow = rules("allow", config.allow());
        this.deny = rules("deny", config.deny());
        this.platforms = new TreeSet<>(config.platforms());
        this.holds = holds;
    }

    private static List<Rule> rules(String kind, List<ProviderRule> configured) {
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < configured.size(); i++) {
            ProviderRule rule = configured.get(i);
            String[] globs = rule.provider().split("/");
            Pattern[] parts = new Pattern[3];
            for (int j = 0; j < 3; j++) {
                parts[j] = glob(globs[j]);
            }
            boolean anyVersion = rule.versions() == null || rule.versions().isBlank();
            String text = "policy." + kind + "[" + i + "] (provider \"" + rule.provider() + "\""
                    + (anyVersion ? "" : ", versions \"" + rule.versions() + "\"")
                    + (rule.reason() == null || rule.reason().isBlank() ? "" : ", reason \"" + rule.reason() + "\"")
                    + ")";
            rules.add(
                    new Rule(kind + "[" + i + "]", parts, VersionConstraints.parse(rule.versions()), anyVersion, text));
        }
        return List.copyOf(rules);
    }

    /**
     * One part of a rule's pattern, matched ignoring case: the CLI lowercases provider addresses and registries
     * compare module addresses ignoring case, so a rule written {@code HashiCorp/*} means what it says for every
     * spelling of what it names instead of silently matching nothing.
     */
    public static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE);
    }

    /**
     * Whether {@code pattern}, a rule's part made by {@link #glob}, matches every value: the part is only stars. A
     * rule whose parts after the host are all such applies to everything of the hosts it matches.
     */
    public static boolean matchesEverything(Pattern pattern) {
        return pattern.pattern().matches("(\\.\\*)+");
    }

    /**
     * Why every provider of {@code hostname} is refused whatever its namespace, type and version, if it is: a deny
     * rule for all of the host, or allow rules none of which names the host. What a registry host's discovery
     * document on the mirror leaves out.
     */
    public Optional<String> refusal(String hostname) {
        for (Rule rule : deny) {
            if (rule.anyVersion()
                    && rule.parts()[0].matcher(hostname).matches()
                    && matchesEverything(rule.parts()[1])
                    && matchesEverything(rule.parts()[2])) {
                return Optional.of("every provider of " + hostname + " is denied by " + rule.text());
            }
        }
        if (!allow.isEmpty()
                && allow.stream()
                        .noneMatch(rule -> rule.parts()[0].matcher(hostname).matches())) {
            return Optional.of(
                    "no provider of " + hostname + " matches any of the " + allow.size() + " policy.allow rules");
        }
        return Optional.empty();
    }

    /** Why {@code address} is refused whatever the version, if it is. */
    public Optional<String> refusal(ProviderAddress address) {
        for (Rule rule : deny) {
            if (rule.anyVersion() && rule.matches(address)) {
                holds.held("policy." + rule.name(), address.toString(), Optional.empty());
                return Optional.of(address + " is denied by " + rule.text());
            }
        }
        if (!allow.isEmpty() && allow.stream().noneMatch(rule -> rule.matches(address))) {
            return Optional.of(address + " matches none of the " + allow.size() + " policy.allow rules");
        }
        return Optional.empty();
    }

    /** Why {@code version} of {@code address} is refused, if it is. */
    public Optional<String> refusal(ProviderAddress address, ProviderVersion version) {
        Optional<String> provider = refusal(address);
        if (provider.isPresent()) {
            return provider;
        }
        for (Rule rule : deny) {
            if (rule.matches(address, version)) {
                holds.held("policy." + rule.name(), address + " " + version.canonical(), Optional.empty());
                return Optional.of(address + " " + version + " is denied by " + rule.text());
            }
        }
        if (!allow.isEmpty() && allow.stream().noneMatch(rule -> rule.matches(address, version))) {
            return Optional.of(address + " " + version + " matches none of the policy.allow rules for its provider ("
                    + String.join(
                            ", ",
                            allow.stream()
                                    .filter(rule -> rule.matches(address))
                                    .map(Rule::text)
                                    .toList()) + ")");
        }
        return Optional.empty();
    }

    public boolean allows(ProviderAddress address, ProviderVersion version) {
        return refusal(address, version).isEmpty();
    }

    public boolean allows(Platform platform) {
        return platforms.isEmpty() || platforms.contains(platform.toString());
    }

    /** Why {@code platform} is refused, if it is. */
    public Optional<String> refusal(Platform platform) {
        return allows(platform)
                ? Optional.empty()
                : Optional.of("platform " + platform + " is not among policy.platforms " + platforms);
    }
}
