package io.providermirror.bench;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.providers.VersionDocuments;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.net.URI;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rendering a version document of a release with the 14 platforms a HashiCorp provider publishes: done once
 * per release when archive URLs are plain (then served as bytes), and once per response when they are signed
 * (access control on), where it runs on the event loop.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class VersionDocumentBenchmark {

    private static final String[] PLATFORMS = {
        "darwin_amd64",
        "darwin_arm64",
        "freebsd_386",
        "freebsd_amd64",
        "freebsd_arm",
        "linux_386",
        "linux_amd64",
        "linux_arm",
        "linux_arm64",
        "openbsd_386",
        "openbsd_amd64",
        "solaris_amd64",
        "windows_386",
        "windows_amd64"
    };

    private VerifiedRelease release;
    private final Map<Platform, String> h1 = new HashMap<>();

    @Setup
    public void release() {
        ProviderAddress address = ProviderAddress.parse("registry.terraform.io/hashicorp/aws");
        ProviderVersion version = ProviderVersion.parse("5.80.0").orElseThrow();
        Map<Platform, VerifiedPackage> packages = new HashMap<>();
        int i = 0;
        for (String name : PLATFORMS) {
            Platform platform = Platform.parse(name);
            String file = "terraform-provider-aws_5.80.0_" + name + ".zip";
            String sha256 = HexFormat.of().formatHex(new byte[32]).replace('0', Character.forDigit(i++ % 16, 16));
            packages.put(
                    platform,
                    new VerifiedPackage(
                            platform,
                            file,
                            URI.create("https://releases.hashicorp.com/terraform-provider-aws/5.80.0/" + file),
                            sha256,
                            "34365D9472D7468F",
                            List.of()));
            h1.put(platform, "h1:" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG=");
        }
        release = new VerifiedRelease(address, version, packages);
    }

    @Benchmark
    public RenderedDocument render() {
        return VersionDocuments.render(release, h1, platform -> true, platform -> null);
    }

    @Benchmark
    public RenderedDocument renderWithSignedUrls() {
        return VersionDocuments.render(
                release,
                h1,
                platform -> true,
                platform -> "expires=1795000000&signature=0123456789abcdef0123456789abcdef0123456789abcdef");
    }
}
