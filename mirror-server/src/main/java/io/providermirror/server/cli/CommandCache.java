package io.providermirror.server.cli;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The cache directory a command ({@code warm --config}, {@code export}, {@code import}, {@code modules accept})
 * works on: named on the command's first line, and never invented. Without {@code --config} (and without
 * {@code cache.directory} in the environment) the default directory must exist already; otherwise the command would
 * create an empty cache beside the user and report success on it, while the mirror's own cache is elsewhere.
 */
final class CommandCache {

    /** The environment variable that sets {@code cache.directory}. */
    private static final String DIRECTORY_VARIABLE = ConfigLoader.ENV_PREFIX + "CACHE_DIRECTORY";

    private CommandCache() {}

    /**
     * The configuration {@code command} works with ({@code config} and the environment), after telling {@code out}
     * which cache directory that is.
     *
     * @throws ConfigException when it does not load, or names no cache directory that exists and none was chosen
     */
    static MirrorConfig configuration(
            String command,
            Path config,
            Map<String, String> environment,
            UnaryOperator<MirrorConfig> view,
            PrintStream out)
            throws ConfigException {
        MirrorConfig loaded = view.apply(new ConfigLoader(environment).load(config));
        Path directory = loaded.cache().directory().toAbsolutePath().normalize();
        boolean chosen = config != null
                || !environment.getOrDefault(DIRECTORY_VARIABLE, "").isEmpty();
        if (!chosen && !Files.isDirectory(directory)) {
            throw new ConfigException("no --config was given, and there is no cache directory at " + directory
                    + " (cache.directory's default, ./" + loaded.cache().directory() + "): give --config with the "
                    + "configuration of the mirror whose cache this is (its cache.directory), or run the command "
                    + "where that directory is; nothing was created");
        }
        out.println(command + ": cache directory " + directory
                + (loaded.cache().s3() == null
                        ? ""
                        : " (the cache of record is the bucket "
                                + loaded.cache().s3().bucket() + ")"));
        return loaded;
    }

    /** The cache {@link #configuration} chooses, opened for {@code command} (it holds the directory's lock). */
    static MirrorWiring open(
            String command,
            Path config,
            Map<String, String> environment,
            UnaryOperator<MirrorConfig> view,
            PrintStream out)
            throws ConfigException, IOException {
        return open(configuration(command, config, environment, view, out));
    }

    /** The cache of {@code loaded} (as {@link #configuration} chose it), opened: this process holds its lock. */
    static MirrorWiring open(MirrorConfig loaded) throws IOException {
        return MirrorWiring.open(loaded, Clock.systemUTC(), false, UnaryOperator.identity(), new SimpleMeterRegistry());
    }
}
