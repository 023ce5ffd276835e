package io.providermirror.server.config;

import java.util.List;

/** What the mirror lets in of registry modules: allow rules (when any, a module must match one) and deny rules. */
public record ModulePolicyConfig(List<ModuleRule> allow, List<ModuleRule> deny) {

    public ModulePolicyConfig {
        allow = allow == null ? List.of() : List.copyOf(allow);
        deny = deny == null ? List.of() : List.copyOf(deny);
    }
}
