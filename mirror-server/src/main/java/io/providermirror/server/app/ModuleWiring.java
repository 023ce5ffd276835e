package io.providermirror.server.app;

import io.providermirror.server.config.GitHostConfig;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.PolicyHolds;
import io.providermirror.server.core.ReleaseAge;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.face.modules.ModulePolicy;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.git.FetchedSource;
import io.providermirror.upstream.git.GitCredential;
import io.providermirror.upstream.git.GitSource;
import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * Builds {@link ModuleMirror} from the configuration: the git hosts' credentials read from their token files (a
 * file that cannot be read stops the start, naming its key), the bounds, and the directory for git fetches (emptied
 * of what a crashed run left). Its fetches go through the {@link OriginFills} provider archives use.
 */
final class ModuleWiring {

    /** Beside the archive store, never inside its {@code tmp/}: fetches are bare repositories, directory trees. */
    static final String GIT_WORK = "git-work";

    private ModuleWiring() {}

    static ModuleMirror create(
            MirrorConfig config,
            Path cacheDirectory,
            OriginAccess origin,
            OriginTrust trust,
            ModuleOrigins origins,
            EngineServices engine,
            PolicyHolds holds)
            throws IOException {
        Clock clock = engine.clock();
        OriginHttpClient http = origin.http();
        Path work = cacheDirectory.resolve(GIT_WORK);
        FetchedSource.deleteTree(work);
        Files.createDirectories(work);
        GitSource git = new GitSource(
                        http::checkDestination,
                        trust::trustManager,
                        gitCredentials(config.modules().gitHosts()),
                        config.upstream().archiveTimeout(),
                        clock,
                        ConfiguredProxy.from(config.upstream().proxy(), System.getenv())
                                .orElse(null))
                .withMinimumRate(
                        config.upstream().minTransferRate().bytes(),
                        config.upstream().readTimeout());
        return new ModuleMirror(
                new ModuleMirror.Settings(
                        config.cache().indexTtl(),
                        config.server().metadataTimeout(),
                        config.upstream().archiveTimeout(),
                        config.modules().passthroughUnsupported(),
                        config.upstream().offline(),
                        new ArchiveLimits(
                                config.modules().maxArchiveEntries(),
                                config.modules().maxUnpackedSize().bytes()),
                        work),
                engine,
                origins,
                git,
                new ModulePolicy(
                        config.policy().modules(),
                        new ReleaseAge(config.policy(), clock, engine.metrics(), engine.decisions(), holds),
                        holds));
    }

    private static Map<String, GitCredential> gitCredentials(Map<String, GitHostConfig> hosts) throws IOException {
        Map<String, GitCredential> credentials = new HashMap<>();
        for (Map.Entry<String, GitHostConfig> host : hosts.entrySet()) {
            Path file = host.getValue().tokenFile();
            String token;
            try {
                token = Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IOException(
                        "modules.gitHosts." + host.getKey() + ".tokenFile: cannot read " + file + ": " + e, e);
            }
            if (token.isEmpty()) {
                throw new IOException("modules.gitHosts." + host.getKey() + ".tokenFile: " + file + " is empty");
            }
            credentials.put(host.getKey(), GitCredential.basic(host.getValue().username(), token));
        }
        return credentials;
    }
}
