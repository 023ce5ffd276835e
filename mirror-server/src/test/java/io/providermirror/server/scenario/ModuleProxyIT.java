package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.GitRepository;
import io.providermirror.testkit.Tinyproxy;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Behind an egress proxy (a real tinyproxy), git module sources are cloned through it, as registry requests are. */
final class ModuleProxyIT {

    @TempDir
    Path tmp;

    @Test
    void aGitModuleSourceIsClonedThroughTheEgressProxy() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                GitHttpServer git = GitHttpServer.start(tmp.resolve("git"), origin.certificates());
                Tinyproxy proxy = Tinyproxy.start(tmp.resolve("proxy"), null, null)) {
            FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
            GitRepository repository = git.createRepository("net");
            repository.tag(
                    "v1.0.0", repository.commit(Map.of("main.tf", "output \"v\" {\n  value = 1\n}\n"), "c"), true);
            registry.publish("corp", "net", "aws", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                    .set("upstream.proxy.url", "http://127.0.0.1:" + proxy.port())
                    .set(
                            "upstream.hosts." + MirrorFixture.HOST.replace(".", "\\.") + ".downloadHosts",
                            List.of(git.url("x").getAuthority()))
                    .start()) {
                HttpResponse<byte[]> download =
                        mirror.get("/registry/" + MirrorFixture.HOST + "/modules.v1/corp/net/aws/1.0.0/download");
                assertThat(download.statusCode()).isEqualTo(204);
                String location =
                        download.headers().firstValue("X-Terraform-Get").orElseThrow();
                HttpResponse<byte[]> archive =
                        mirror.get(URI.create(location.split("\\?")[0]).getRawPath());
                assertThat(archive.statusCode())
                        .as(new String(archive.body(), java.nio.charset.StandardCharsets.UTF_8))
                        .isEqualTo(200);
            }
            assertThat(proxy.tunnelsTo(git.url("x").getAuthority()))
                    .as("the git server was reached through the proxy")
                    .isPositive();
        }
    }
}
