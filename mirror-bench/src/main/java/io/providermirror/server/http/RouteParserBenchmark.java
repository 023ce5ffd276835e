package io.providermirror.server.http;

import java.util.concurrent.TimeUnit;
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

// In the HTTP package itself (the one package split across modules): the router is package-private there.
/** Route parsing, which every request goes through before anything else: the three paths the CLI asks for. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RouteParserBenchmark {

    @Param({
        "/providers/registry.terraform.io/hashicorp/aws/index.json",
        "/providers/registry.terraform.io/hashicorp/aws/5.80.0.json",
        "/providers/registry.terraform.io/hashicorp/aws/terraform-provider-aws_5.80.0_linux_amd64.zip"
    })
    public String path;

    @Benchmark
    public Route parse() {
        return RouteParser.parse(path);
    }
}
