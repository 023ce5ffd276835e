package io.providermirror.server.app;

import io.providermirror.server.BuildInfo;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.InternalAuthorities;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.RetryPolicy;

/** The one HTTP client towards origins, as {@code upstream} configures it: timeouts, retries, proxy, trust, destinations. */
final class ConfiguredOriginClient {

    /** Redirects an origin request may follow. */
    private static final int MAX_REDIRECTS = 3;
    /** The largest origin document (discovery, version list, download document, SHA256SUMS, signature). */
    private static final int MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

    private ConfiguredOriginClient() {}

    static OriginHttpClient open(
            MirrorConfig config, OriginTrust trust, ConfiguredOriginAuthorities origins, MirrorMetrics metrics)
            throws java.io.IOException {
        return new OriginHttpClient(
                new OriginHttpClient.Settings(
                        config.upstream().connectTimeout(),
                        config.upstream().requestTimeout(),
                        config.upstream().readTimeout(),
                        trust,
                        "provider-mirror/" + BuildInfo.VERSION,
                        MAX_REDIRECTS,
                        MAX_DOCUMENT_BYTES,
                        new RetryPolicy(
                                config.upstream().maxAttempts(),
                                RetryPolicy.DEFAULT.baseDelay(),
                                RetryPolicy.DEFAULT.maxDelay()),
                        config.upstream().offline(),
                        InternalAuthorities.of(origins.internal()),
                        ConfiguredProxy.from(config.upstream().proxy(), System.getenv())
                                .orElse(null),
                        config.server().nativeTransport()),
                metrics);
    }
}
