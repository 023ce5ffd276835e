package io.providermirror.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference in {@code docs/configuration.md} is checked against the configuration model: every
 * key the mirror reads has a row, and every row names a key the mirror reads.
 */
final class ConfigReferenceTest {

    private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
    /** A row of the reference's key table: its first cell. */
    private static final Pattern ROW = Pattern.compile("^\\| (`[^|]*`) \\|", Pattern.MULTILINE);

    private static final Pattern KEY = Pattern.compile("`([^`]+)`");

    @Test
    void everyKeyOfTheModelHasARowAndEveryRowIsAKey() throws IOException {
        Set<String> model = new TreeSet<>();
        collect(MirrorConfig.class, "", model);

        Set<String> documented = documentedKeys(Files.readString(REFERENCE));

        assertThat(documented).as("keys documented in docs/configuration.md").containsAll(model);
        assertThat(model).as("keys of the configuration model").containsAll(documented);
    }

    /** Keys of the reference's table; {@code <hostname>} and other placeholders become {@code *}. */
    private static Set<String> documentedKeys(String reference) {
        Set<String> keys = new TreeSet<>();
        Matcher row = ROW.matcher(reference.substring(0, reference.indexOf("**Environment overrides.**")));
        while (row.find()) {
            String parent = null;
            Matcher key = KEY.matcher(row.group(1));
            while (key.find()) {
                String name = key.group(1).replaceAll("<[^>]+>", "*");
                if (name.contains(".")) {
                    parent = name.substring(0, name.lastIndexOf('.') + 1);
                    keys.add(name);
                } else if (parent != null) {
                    keys.add(parent + name); // `a.b.token` / `tokenFile`: a sibling of the key before it
                }
            }
        }
        return keys;
    }

    private static void collect(Class<?> type, String prefix, Set<String> keys) {
        for (RecordComponent component : type.getRecordComponents()) {
            String key = prefix + component.getName();
            Class<?> value = component.getType();
            if (value.isRecord() && value != DataSize.class) {
                collect(value, key + ".", keys);
            } else if (Map.class.isAssignableFrom(value)
                    && mapValue(component.getGenericType()) instanceof Class<?> c
                    && c.isRecord()) {
                keys.add(key + ".*");
                collect(c, key + ".*.", keys);
            } else {
                keys.add(key);
            }
        }
    }

    private static Type mapValue(Type type) {
        return type instanceof ParameterizedType map ? map.getActualTypeArguments()[1] : Object.class;
    }
}
