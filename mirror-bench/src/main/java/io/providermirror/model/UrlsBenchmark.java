package io.providermirror.model;

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * URLs redacted in a log line ({@link Urls#redactedIn}, which every line of the text format goes through), against
 * the regular expression it replaced: an access-log line of the CLI (its {@code User-Agent} names its web site) and
 * a warning that names a pre-signed download URL.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class UrlsBenchmark {

    /** The expression before the scan: it finds the same URLs, except right after a digit, {@code _} or letter. */
    private static final Pattern REPLACED = Pattern.compile("(?i)\\b[a-z][a-z0-9+.-]*://[^\\s\"'<>`\\\\]+");

    @Param({
        "127.0.0.1 anonymous \"GET /v1/modules/registry.terraform.io/hashicorp/consul/aws/0.12.0/download\" 204 0 0ms"
                + " \"Terraform/1.11.4 (+https://www.terraform.io)\"",
        "fetching the archive of registry.terraform.io/hashicorp/aws 5.80.0 linux_amd64 from releases.example.com"
                + " failed: https://releases.example.com/aws/5.80.0/aws_linux_amd64.zip"
                + "?X-Amz-Signature=0123456789abcdef answered HTTP 503"
    })
    public String line;

    @Benchmark
    public String scan() {
        return Urls.redactedIn(line);
    }

    @Benchmark
    public String regularExpression() {
        Matcher m = REPLACED.matcher(line);
        StringBuilder out = new StringBuilder(line.length());
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(Urls.redactedIn(m.group())));
        }
        m.appendTail(out);
        return out.toString();
    }
}
