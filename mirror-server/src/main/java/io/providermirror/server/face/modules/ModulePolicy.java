package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.model.VersionConstraints;
import io.providermirror.server.config.ModulePolicyConfig;
import io.providermirror.server.config.ModuleRule;
import io.providermirror.server.core.PolicyHolds;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.ReleaseAge;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the mirror lets in of registry modules ({@code policy.modules}): deny rules refuse what they match; when
 * allow rules exist, only what one of them matches comes in. A refusal names the rule. Rules match ignoring case,
 * as registries compare module addresses, so no spelling of a denied module ({@code Blocked/mod/x}) gets past them.
 */
public final class ModulePolicy {

    private record Rule(String id, Pattern[] parts, VersionConstraints versions, boolean anyVersion, String text) {
        boolean matches(ModuleAddress address) {
            return parts[0].matcher(address.hostname()).matches()
                    && parts[1].matcher(address.namespace()).matches()
                    && parts[2].matcher(address.name()).matches()
                    && parts[3].matcher(address.system()).matches();
        }

        boolean matches(ModuleAddress address, ProviderVersion version) {
            return matches(address) && (anyVersion || versions.matches(version));
        }
    }

    private final List<Rule> allow;
    private final List<Rule> deny;
    private final ReleaseAge releaseAge;
    private final PolicyHolds holds;

    /** Rules only, no release-age quarantine. */
    public ModulePolicy(ModulePolicyConfig config) {
        this(config, ReleaseAge.NONE);
    }

    /** With {@code releaseAge}, the quarantine that holds young versions back. */
    public ModulePolicy(ModulePolicyConfig config, ReleaseAge releaseAge) {
        this(config, releaseAge, new PolicyHolds(java.time.Clock.systemUTC()));
    }

    /** @param holds where what a deny rule refuses is recorded for the status page */
    public ModulePolicy(ModulePolicyConfig config, ReleaseAge releaseAge, PolicyHolds holds) {
        this.allow = rules("allow", config.allow());
        this.deny = rules("deny", config.deny());
        this.releaseAge = releaseAge;
        this.holds = holds;
    }

    /** The release-age quarantine modules are under. */
    public ReleaseAge releaseAge() {
        return releaseAge;
    }

    private static List<Rule> rules(String kind, List<ModuleRule> configured) {
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < configured.size(); i++) {
            ModuleRule rule = configured.get(i);
            String[] globs = rule.module().split("/");
            Pattern[] parts = new Pattern[4];
            for (int j = 0; j < 4; j++) {
                parts[j] = ProviderPolicy.glob(globs[j]);
            }
            boolean anyVersion = rule.versions() == null || rule.versions().isBlank();
            String text = "policy.modules." + kind + "[" + i + "] (module \"" + rule.module() + "\""
                    + (anyVersion ? "" : ", versions \"" + rule.versions() + "\"")
                    + (rule.reason() == null || rule.reason().isBlank() ? "" : ", reason \"" + rule.reason() + "\"")
                    + ")";
            rules.add(new Rule(
                    "policy.modules." + kind + "[" + i + "]",
                    parts,
                    VersionConstraints.parse(rule.versions()),
                    anyVersion,
                    text));
        }
        return List.copyOf(rules);
    }

    /**
     * Why every module of {@code hostname} is refused whatever its namespace, name, system and version, if it is: a
     * deny rule for all of the host, or allow rules none of which names the host.
     */
    public Optional<String> refusal(String hostname) {
        for (Rule rule : deny) {
            if (rule.anyVersion()
                    && rule.parts()[0].matcher(hostname).matches()
                    && Arrays.stream(rule.parts(), 1, 4).allMatch(ProviderPolicy::matchesEverything)) {
                return Optional.of("every module of " + hostname + " is denied by " + rule.text());
            }
        }
        if (!allow.isEmpty()
                && allow.stream()
                        .noneMatch(rule -> rule.parts()[0].matcher(hostname).matches())) {
            return Optional.of(
                    "no module of " + hostname + " matches any of the " + allow.size() + " policy.modules.allow rules");
        }
        return Optional.empty();
    }

    /** Why {@code address} is refused whatever the version, if it is. */
    public Optional<String> refusal(ModuleAddress address) {
        for (Rule rule : deny) {
            if (rule.anyVersion() && rule.matches(address)) {
                holds.held(rule.id(), address.toString(), Optional.empty());
                return Optional.of("module " + address + " is denied by " + rule.text());
            }
        }
        if (!allow.isEmpty() && allow.stream().noneMatch(rule -> rule.matches(address))) {
            return Optional.of(
                    "module " + address + " matches none of the " + allow.size() + " policy.modules.allow rules");
        }
        return Optional.empty();
    }

    /** Why {@code version} of {@code address} is refused, if it is. */
    public Optional<String> refusal(ModuleAddress address, ProviderVersion version) {
        Optional<String> module = refusal(address);
        if (module.isPresent()) {
            return module;
        }
        for (Rule rule : deny) {
            if (rule.matches(address, version)) {
                holds.held(rule.id(), address + " " + version, Optional.empty());
                return Optional.of("module " + address + " " + version + " is denied by " + rule.text());
            }
        }
        if (!allow.isEmpty() && allow.stream().noneMatch(rule -> rule.matches(address, version))) {
            return Optional.of(
                    "module " + address + " " + version + " matches none of the policy.modules.allow rules for it");
        }
        return Optional.empty();
    }

    public boolean allows(ModuleAddress address, ProviderVersion version) {
        return refusal(address, version).isEmpty();
    }
}
