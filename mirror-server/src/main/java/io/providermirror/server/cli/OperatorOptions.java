package io.providermirror.server.cli;

import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options of a command that can work through a running mirror's operator API when that mirror holds the cache
 * directory ({@code import}, {@code modules accept}): where the mirror listens and the operator token.
 */
final class OperatorOptions {

    @Option(
            names = "--mirror-url",
            paramLabel = "URL",
            description = "where the mirror that holds the cache directory listens, for its operator API "
                    + "(default: the first server.publicUrl, else https://localhost:<server.port>)")
    URI mirrorUrl;

    @Option(
            names = "--operator-token-file",
            paramLabel = "FILE",
            description = "a file holding the operator token, for a running mirror's operator API (default: the "
                    + "environment variable PROVIDER_MIRROR_OPERATOR_TOKEN)")
    Path operatorTokenFile;
}
