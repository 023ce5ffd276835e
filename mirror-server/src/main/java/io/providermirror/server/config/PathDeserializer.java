package io.providermirror.server.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Reads every path key of the configuration: {@code ~} alone or at the start ({@code ~/x}) is the home directory
 * of the user the mirror runs as, as a shell would read it, so {@code ~/.terraform.d/credentials.tfrc.json} names
 * that file rather than {@code ./~/.terraform.d/...}. {@code ~name/...} (another user's home) is refused rather
 * than read as a directory called {@code ~name}.
 */
final class PathDeserializer extends StdScalarDeserializer<Path> {

    private static final long serialVersionUID = 1L;

    private final String home;

    PathDeserializer(String home) {
        super(Path.class);
        this.home = home;
    }

    @Override
    public Path deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        String text = parser.getValueAsString();
        if (text == null) {
            return (Path) context.handleUnexpectedToken(Path.class, parser);
        }
        try {
            if (text.equals("~")) {
                return Path.of(home);
            }
            if (text.startsWith("~/")) {
                return Path.of(home, text.substring(2));
            }
            if (text.startsWith("~")) {
                throw context.weirdStringException(text, Path.class, "~name is not read; write the full path");
            }
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw context.weirdStringException(text, Path.class, e.getReason());
        }
    }
}
