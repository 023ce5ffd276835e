package io.providermirror.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** A scrape in the Prometheus text format, read into series for assertions. */
public record PrometheusScrape(List<Series> series) {

    /** One sample line: metric name, labels, value. */
    public record Series(String name, Map<String, String> labels, double value) {}

    /** Reads a scrape; comment lines are skipped. */
    public static PrometheusScrape parse(String text) {
        List<Series> series = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            String name;
            Map<String, String> labels = new LinkedHashMap<>();
            String rest;
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                int end = readLabels(line, brace + 1, labels);
                rest = line.substring(end + 1).trim();
            } else {
                name = line.substring(0, space);
                rest = line.substring(space + 1).trim();
            }
            String value = rest.split(" ")[0];
            series.add(new Series(
                    name,
                    labels,
                    value.equals("+Inf")
                            ? Double.POSITIVE_INFINITY
                            : value.equals("-Inf") ? Double.NEGATIVE_INFINITY : Double.parseDouble(value)));
        }
        return new PrometheusScrape(series);
    }

    /** Reads {@code k="v",...} up to the closing brace; returns the brace's index. */
    private static int readLabels(String line, int from, Map<String, String> labels) {
        int i = from;
        while (line.charAt(i) != '}') {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq).trim();
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            while (line.charAt(j) != '"') {
                char c = line.charAt(j);
                if (c == '\\') {
                    char next = line.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
                j++;
            }
            labels.put(key, value.toString());
            i = j + 1;
            if (line.charAt(i) == ',') {
                i++;
            }
        }
        return i;
    }

    /** Every metric name in the scrape. */
    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        series.forEach(s -> names.add(s.name()));
        return names;
    }

    /** The sum of the series named {@code name} whose labels include {@code labels} (pairs: key, value, ...). */
    public double value(String name, String... labels) {
        double sum = 0;
        boolean found = false;
        for (Series s : series) {
            if (!s.name().equals(name)) {
                continue;
            }
            boolean matches = true;
            for (int i = 0; i < labels.length; i += 2) {
                matches &= labels[i + 1].equals(s.labels().get(labels[i]));
            }
            if (matches) {
                sum += s.value();
                found = true;
            }
        }
        if (!found) {
            throw new AssertionError(
                    "no series " + name + " with " + String.join(",", labels) + " in the scrape; names: " + names());
        }
        return sum;
    }
}
