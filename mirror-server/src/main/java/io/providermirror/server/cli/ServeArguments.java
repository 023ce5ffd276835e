package io.providermirror.server.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * Arguments that only start the mirror, read without picocli: nothing, {@code --verify-cache}, {@code --config FILE}
 * or {@code --config=FILE}, each at most once, with a FILE that is not empty, does not start with {@code -} or
 * {@code @} (picocli's argument files) and is not a command's name. Picocli reads every annotation of the command
 * and loads most of its own classes before it parses anything, about a tenth of a second of start-up on the main
 * thread; these arguments need none of it.
 * Anything else (a command, help, a typo, an option given twice) is left to picocli, which parses these same
 * options alike ({@code MainTest} checks) and says what is wrong; so is everything when a {@code picocli.*} system
 * property is set, as those change how picocli reads values (e.g. {@code picocli.trimQuotes}).
 *
 * @param config the configuration file, when one is named
 * @param verifyCache whether every cached archive is hashed before serving
 */
record ServeArguments(Optional<Path> config, boolean verifyCache) {

    /** What {@code args} say when they only start the mirror; empty when picocli must read them. */
    static Optional<ServeArguments> parse(String[] args, Set<String> commandNames) {
        if (System.getProperties().stringPropertyNames().stream().anyMatch(name -> name.startsWith("picocli."))) {
            return Optional.empty();
        }
        String config = null;
        boolean verifyCache = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value;
            if (arg.equals("--verify-cache") && !verifyCache) {
                verifyCache = true;
                continue;
            } else if (arg.startsWith("--config=")) {
                value = arg.substring("--config=".length());
            } else if (arg.equals("--config") && i + 1 < args.length) {
                value = args[++i];
            } else {
                return Optional.empty();
            }
            if (config != null
                    || value.isEmpty()
                    || value.startsWith("-")
                    || value.startsWith("@")
                    || commandNames.contains(value)) {
                return Optional.empty();
            }
            config = value;
        }
        try {
            return Optional.of(new ServeArguments(Optional.ofNullable(config).map(Path::of), verifyCache));
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }
}
