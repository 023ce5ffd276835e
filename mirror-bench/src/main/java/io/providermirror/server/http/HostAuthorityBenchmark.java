package io.providermirror.server.http;

import java.util.concurrent.TimeUnit;
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
 * The check of a request's {@code Host} header that every module download, registry discovery document and module
 * registry API answer makes ({@link HostAuthority}), against the regular expression it replaced.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HostAuthorityBenchmark {

    /** The check before {@link HostAuthority}: the same verdicts ({@code HostAuthorityTest}). */
    private static final Pattern REPLACED =
            Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]{2,45}](:[0-9]{1,5})?");

    @Param({"mirror.example.com:8443", "[2001:db8::1]:8443"})
    public String host;

    @Benchmark
    public boolean hostAuthority() {
        return HostAuthority.isValid(host);
    }

    @Benchmark
    public boolean regularExpression() {
        return REPLACED.matcher(host).matches();
    }
}
