package io.providermirror.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.providermirror.model.VersionConstraints;

/**
 * One allow or deny rule for registry modules: a glob over {@code hostname/namespace/name/system} ({@code *} any
 * characters within a part, {@code ?} one character) and, optionally, a version constraint in Terraform's syntax.
 * {@code namespace/name/system} alone means {@code registry.terraform.io/namespace/name/system}.
 * A deny rule's {@code reason} ("breaks IAM") is part of every refusal it makes.
 */
public record ModuleRule(String module, String versions, String reason) {

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public ModuleRule {
        String[] parts = module == null ? new String[0] : module.split("/", -1);
        if (parts.length == 3) {
            module = ProviderRule.DEFAULT_HOSTNAME + "/" + module;
            parts = module.split("/", -1);
        }
        if (parts.length != 4 || java.util.Arrays.stream(parts).anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException(
                    "module: '" + module + "' (expected: hostname/namespace/name/system "
                            + "or namespace/name/system, each part a glob such as registry.terraform.io/terraform-aws-modules/*/aws)");
        }
        try {
            VersionConstraints.parse(versions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "versions: '" + versions + "' is not a version constraint (expected: Terraform's syntax, such as "
                            + "\">= 5.0, < 6.0\" or \"~> 5.80\"): " + e.getMessage(),
                    e);
        }
    }

    /** A rule without a reason. */
    public ModuleRule(String module, String versions) {
        this(module, versions, null);
    }

    /** The short form of a rule: only the module pattern, every version. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static ModuleRule of(String module) {
        return new ModuleRule(module, null, null);
    }
}
