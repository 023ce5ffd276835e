package io.providermirror.upstream;

/**
 * A service a host's discovery document names ({@code providers.v1}, {@code modules.v1}), with the base URL beneath
 * which it answers: what {@link ServiceBases} keeps for each host.
 */
public enum RegistryService {
    PROVIDERS("providers.v1", "provider registry"),
    MODULES("modules.v1", "module registry");

    private final String id;
    private final String description;

    RegistryService(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** The key of the service in a discovery document. */
    public String id() {
        return id;
    }

    /** What the service is, in words ("provider registry"), for messages. */
    public String description() {
        return description;
    }
}
