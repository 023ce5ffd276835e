package io.providermirror.upstream.verify;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed SHA256SUMS document: one {@code <hex sha256>  <file name>} line per file, as {@code sha256sum}
 * writes it (a {@code *} binary marker before the name is accepted).
 */
public record Sha256Sums(Map<String, String> hashesByFileName) {

    private static final Pattern LINE = Pattern.compile("([0-9a-fA-F]{64}) [ *]?(\\S.*)");

    public Sha256Sums {
        hashesByFileName = Map.copyOf(hashesByFileName);
    }

    /** Parses the document; a line that is neither blank nor a hash line makes the whole document invalid. */
    public static Sha256Sums parse(byte[] document) {
        Map<String, String> hashes = new LinkedHashMap<>();
        String text = new String(document, StandardCharsets.UTF_8);
        int lineNumber = 0;
        for (String line : text.split("\r?\n")) {
            lineNumber++;
            if (line.isBlank()) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("SHA256SUMS line " + lineNumber + " is not '<sha256>  <file name>'");
            }
            String previous = hashes.putIfAbsent(m.group(2), m.group(1).toLowerCase(Locale.ROOT));
            if (previous != null && !previous.equalsIgnoreCase(m.group(1))) {
                throw new IllegalArgumentException("SHA256SUMS lists " + m.group(2) + " twice with different hashes");
            }
        }
        return new Sha256Sums(hashes);
    }

    /** The lowercase hex sha256 listed for {@code fileName}, if any. */
    public Optional<String> hashOf(String fileName) {
        return Optional.ofNullable(hashesByFileName.get(fileName));
    }
}
