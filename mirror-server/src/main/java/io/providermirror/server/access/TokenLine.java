package io.providermirror.server.access;

import io.providermirror.server.config.ClientConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One line of a tokens file: {@code sha256:<hex>} alone (a plain token, named {@code token-<first 8 hex digits>}),
 * or {@code <name> sha256:<hex>}, either followed by {@code hosts=<glob>,<glob>} and {@code namespaces=<glob>,...}
 * when the file's tokens may be limited. Words are separated by spaces or tabs.
 */
final class TokenLine {

    private static final String SHAPE =
            "expected: [<name>] sha256:<64 hex digits> [hosts=<glob>,...] [namespaces=<glob>,...]; the file holds "
                    + "hashes of tokens, never tokens";

    private TokenLine() {}

    /**
     * The client {@code line} describes.
     *
     * @param scoped whether {@code hosts=} and {@code namespaces=} are allowed
     * @throws IllegalArgumentException saying what is wrong with the line
     */
    static ClientConfig parse(String line, boolean scoped) {
        List<String> words = new ArrayList<>(Arrays.asList(line.strip().split("[ \\t]+")));
        String name = null;
        if (!words.isEmpty() && !TokenHashes.isHash(words.get(0)) && words.size() > 1) {
            name = words.remove(0);
        }
        if (words.isEmpty() || !TokenHashes.isHash(words.get(0))) {
            throw new IllegalArgumentException("not a token hash line (" + SHAPE + ")");
        }
        String hash = words.remove(0);
        List<String> hosts = null;
        List<String> namespaces = null;
        for (String word : words) {
            int equals = word.indexOf('=');
            String option = equals < 0 ? word : word.substring(0, equals);
            List<String> values = equals < 0
                    ? List.of()
                    : Arrays.asList(word.substring(equals + 1).split(",", -1));
            if (!scoped && (option.equals("hosts") || option.equals("namespaces"))) {
                throw new IllegalArgumentException(option + "= limits a client token; operator tokens have no scope");
            } else if (option.equals("hosts") && hosts == null) {
                hosts = values;
            } else if (option.equals("namespaces") && namespaces == null) {
                namespaces = values;
            } else {
                throw new IllegalArgumentException("'" + abbreviated(word) + "' is not hosts=... or namespaces=..., "
                        + "or is given twice (" + SHAPE + ")");
            }
        }
        if (name == null) {
            ClientConfig plain = ClientConfig.plain(hash);
            return new ClientConfig(plain.name(), hash, hosts, namespaces);
        }
        return new ClientConfig(name, hash, hosts, namespaces);
    }

    private static String abbreviated(String word) {
        return word.length() > 40 ? word.substring(0, 40) + "..." : word;
    }
}
