package io.providermirror.server.app;

import io.providermirror.server.config.ProxyConfig;
import io.providermirror.upstream.OriginProxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which proxy origin traffic goes through: {@code upstream.proxy} when it names one, else the
 * {@code HTTPS_PROXY} / {@code NO_PROXY} environment variables; {@code upstream.proxy.noProxy} wins over
 * {@code NO_PROXY} either way.
 */
final class ConfiguredProxy {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ConfiguredProxy.class);

    private ConfiguredProxy() {}

    static Optional<OriginProxy> from(ProxyConfig config, Map<String, String> environment) throws IOException {
        Optional<OriginProxy> proxy;
        if (config != null && config.url() != null) {
            char[] password = config.password() != null
                    ? config.password().toCharArray()
                    : config.passwordFile() != null ? readPassword(config) : null;
            List<String> noProxy = config.noProxy() != null ? config.noProxy() : OriginProxy.noProxy(environment);
            proxy = Optional.of(OriginProxy.of(config.url(), noProxy, config.username(), password));
        } else {
            proxy = OriginProxy.fromEnvironment(environment)
                    .map(p -> config != null && config.noProxy() != null ? p.withNoProxy(config.noProxy()) : p);
        }
        proxy.ifPresent(p -> LOG.info(
                "origin traffic goes through the proxy {}{}; directly to: {}",
                p.describe(),
                p.username().map(user -> " as " + user).orElse(""),
                p.bypassed().isEmpty() ? "nothing" : p.bypassed()));
        return proxy;
    }

    private static char[] readPassword(ProxyConfig config) throws IOException {
        try {
            return Files.readString(config.passwordFile(), StandardCharsets.UTF_8)
                    .strip()
                    .toCharArray();
        } catch (IOException e) {
            throw new IOException(
                    "upstream.proxy.passwordFile: cannot read " + config.passwordFile() + ": " + e.getMessage(), e);
        }
    }
}
