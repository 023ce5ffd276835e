package io.providermirror.server.config;

/**
 * The whole configuration, as read from YAML and environment overrides. Missing keys take their defaults in
 * the records' constructors, so a configuration object is always complete.
 */
public record MirrorConfig(
        ServerConfig server,
        CacheConfig cache,
        UpstreamConfig upstream,
        ManagementConfig management,
        LoggingConfig logging,
        PolicyConfig policy,
        AuthConfig auth,
        ModulesConfig modules,
        OperatorConfig operator,
        InventoryConfig inventory) {

    public MirrorConfig {
        server = server == null
                ? new ServerConfig(null, null, null, null, null, null, null, null, null, null, null, null)
                : server;
        management = management == null ? new ManagementConfig(null, null) : management;
        logging = logging == null ? new LoggingConfig(null) : logging;
        policy = policy == null ? new PolicyConfig(null, null, null, null) : policy;
        auth = auth == null ? new AuthConfig(null, null, null, null, null) : auth;
        modules = modules == null ? ModulesConfig.defaults() : modules;
        operator = operator == null ? new OperatorConfig(null, null, null) : operator;
        inventory = inventory == null ? new InventoryConfig(null, null) : inventory;
        cache = cache == null ? new CacheConfig(null, null, null, null, null, null, null, null) : cache;
        upstream = upstream == null
                ? new UpstreamConfig(
                        null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                        null, null)
                : upstream;
    }

    /** The configuration with every default. */
    public static MirrorConfig defaults() {
        return new MirrorConfig(null, null, null, null, null, null, null, null, null, null);
    }
}
