package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.upstream.ModuleSource.Kind;
import io.providermirror.upstream.verify.ArchiveType;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

final class ModuleSourceTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                "https://h.test/x.tar.gz                        | https://h.test/x.tar.gz         | ''        | TAR_GZ",
                "https://h.test/x.tgz                           | https://h.test/x.tgz            | ''        | TGZ",
                "https://h.test/x.ZIP                           | https://h.test/x.ZIP            | ''        | ZIP",
                "https://h.test/x.tar.bz2                       | https://h.test/x.tar.bz2        | ''        | TAR_BZ2",
                "https://h.test/x.tar.xz                        | https://h.test/x.tar.xz         | ''        | TAR_XZ",
                "https://h.test/x.txz                           | https://h.test/x.txz            | ''        | TXZ",
                "https://h.test/x.tar.gz//modules/inner         | https://h.test/x.tar.gz         | modules/inner | TAR_GZ",
                "https://h.test/x.tar.gz//modules/inner/        | https://h.test/x.tar.gz         | modules/inner | TAR_GZ",
                "https://h.test/get?id=7&archive=zip            | https://h.test/get?id=7         | ''        | ZIP",
                "https://h.test/get//sub?archive=tar.gz&sig=abc | https://h.test/get?sig=abc      | sub       | TAR_GZ",
                "https::https://h.test/x.zip                    | https://h.test/x.zip            | ''        | ZIP",
                "https://u:p@h.test:8443/x.zip                  | https://u:p@h.test:8443/x.zip   | ''        | ZIP",
            })
    void readsHttpsArchivesAsGoGetterDoes(String source, String url, String subdirectory, ArchiveType type) {
        ModuleSource parsed = ModuleSource.parse(source);
        assertThat(parsed.kind()).isEqualTo(Kind.ARCHIVE);
        assertThat(parsed.url()).isEqualTo(URI.create(url));
        assertThat(parsed.subdirectory()).isEqualTo(subdirectory);
        assertThat(parsed.archiveType()).isEqualTo(type);
        assertThat(parsed.gitRef()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "git::https://h.test/repo.git                  | https://h.test/repo.git            | ''     | ''",
                "git::https://h.test/repo.git?ref=v1           | https://h.test/repo.git            | ''     | v1",
                "git::https://h.test/repo.git//sub?ref=v1      | https://h.test/repo.git            | sub    | v1",
                "git::https://h.test/repo.git?depth=1&ref=v1   | https://h.test/repo.git?depth=1    | ''     | v1",
                "GIT::https://h.test/repo.git                  | https://h.test/repo.git            | ''     | ''",
                "github.com/acme/hello                         | https://github.com/acme/hello.git  | ''     | ''",
                "github.com/acme/hello.git                     | https://github.com/acme/hello.git  | ''     | ''",
                "github.com/acme/hello/modules/a?ref=v2.0.0    | https://github.com/acme/hello.git  | modules/a | v2.0.0",
            })
    void readsGitOverHttpsAndTheGitHubShorthand(String source, String url, String subdirectory, String ref) {
        ModuleSource parsed = ModuleSource.parse(source);
        assertThat(parsed.kind()).isEqualTo(Kind.GIT);
        assertThat(parsed.url()).isEqualTo(URI.create(url));
        assertThat(parsed.subdirectory()).isEqualTo(subdirectory);
        assertThat(parsed.gitRef()).isEqualTo(ref);
        assertThat(parsed.archiveType()).isNull();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "git@github.com:acme/hello.git                | git over ssh",
                "git::ssh://git@h.test/repo.git               | git over ssh",
                "git::git@h.test:repo.git                     | git over ssh",
                "git::http://h.test/repo.git                  | git over http",
                "git::https://h.test/repo.git?sshkey=abc      | ssh key",
                "s3::https://s3.amazonaws.com/b/x.zip         | S3",
                "b.s3-eu-west-1.amazonaws.com/x.zip           | S3",
                "gcs::https://www.googleapis.com/storage/v1/b | Google Cloud Storage",
                "www.googleapis.com/storage/v1/b/x.zip        | Google Cloud Storage",
                "hg::https://h.test/repo                      | Mercurial",
                "file:///tmp/x.zip                            | file path",
                "file::/tmp/x                                 | file path",
                "/tmp/module                                  | file path",
                "./module                                     | file path",
                "C:/modules/x                                 | file path",
                "bitbucket.org/acme/hello                     | Bitbucket",
                "http://h.test/x.tar.gz                       | plain http",
                "https://h.test/module                        | not an archive",
                "https://h.test/x.zip?archive=false           | not an archive",
                "https://h.test/x.gz                          | does not unpack: gz",
                "https://h.test/x?archive=rar                 | does not unpack: rar",
                "ftp://h.test/x.zip                           | unsupported scheme",
                "h.test/x.zip                                 | not a URL",
                "svn::https://h.test/x                        | unknown getter 'svn::'",
            })
    void namesWhyASourceCannotBeMirrored(String source, String reason) {
        ModuleSource parsed = ModuleSource.parse(source);
        assertThat(parsed.kind()).isEqualTo(Kind.UNSUPPORTED);
        assertThat(parsed.url() == null || parsed.url().getScheme().equals("http"))
                .isTrue();
        assertThat(parsed.reason()).contains(reason);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "https://h.test/x.zip\u0000",
                "https://h.test/x.zip\r\nX-Injected: 1",
                "https://h.test/x .zip",
                "https://h.test/x.zip\u0085",
                "https://h.test\\evil/x.zip",
                "https://h.test/x.zip//../../etc",
                "https://h.test/x.zip//sub/../../etc",
                "https://h.test/x.zip//./sub",
                "https://h.test/x.zip//a//b",
                "https://h.test/x.zip//%2e%2e/etc",
                "https://h.test/x.zip//sub/*",
                "git::https://h.test/r.git//..?ref=v1",
                "git::https://h.test/r.git?ref=--upload-pack=evil",
                "https:///x.zip",
                "https://h.test/x.zip#frag",
                "https://h.test/x[.zip",
                "github.com/acme",
            })
    void rejectsHostileOrMalformedSources(String source) {
        assertThatThrownBy(() -> ModuleSource.parse(source)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsSourcesLongerThanAnyRegistryNeeds() {
        assertThatThrownBy(() -> ModuleSource.parse("https://h.test/" + "a".repeat(5000) + ".zip"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/files/x.tar.gz                  | https://reg.test/files/x.tar.gz",
                "./x.tar.gz//sub                  | https://reg.test/v1/modules/acme/hello/null/1.0.0/x.tar.gz//sub",
                "../../2.0.0/x.zip?archive=zip    | https://reg.test/v1/modules/acme/hello/2.0.0/x.zip?archive=zip",
                "https://other.test/x.zip         | https://other.test/x.zip",
            })
    void resolvesRelativeRegistryAnswersAgainstTheDownloadUrlAsTheCliDoes(String location, String expected) {
        URI download = URI.create("https://reg.test/v1/modules/acme/hello/null/1.0.0/download");
        assertThat(ModuleSource.fromRegistry(location, download)).isEqualTo(ModuleSource.parse(expected));
    }

    @Test
    void theMirrorSourcePutsTheSubdirectoryBeforeTheArchiveTypeAndParsesBackToTheSame() {
        String rewritten = "https://mirror.test/modules/a/b/c/1.0.0/pkg"
                + ModuleSource.onMirrorSuffix(ArchiveType.TAR_GZ, "modules/inner");
        assertThat(rewritten).isEqualTo("https://mirror.test/modules/a/b/c/1.0.0/pkg//modules/inner?archive=tar.gz");
        ModuleSource back = ModuleSource.parse(rewritten);
        assertThat(back.url()).isEqualTo(URI.create("https://mirror.test/modules/a/b/c/1.0.0/pkg"));
        assertThat(back.subdirectory()).isEqualTo("modules/inner");
        assertThat(back.archiveType()).isEqualTo(ArchiveType.TAR_GZ);
        assertThat("https://mirror.test/x.zip" + ModuleSource.onMirrorSuffix(ArchiveType.ZIP, ""))
                .isEqualTo("https://mirror.test/x.zip?archive=zip");
    }

    @Test
    void theMirrorSourceRefusesAHostileSubdirectory() {
        assertThatThrownBy(() -> ModuleSource.onMirrorSuffix(ArchiveType.ZIP, "../up"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void neverShowsCredentialsOrQueryValuesInText() {
        ModuleSource archive = ModuleSource.parse("https://user:secret@h.test/x.zip//sub?token=hush");
        ModuleSource git = ModuleSource.parse("git::https://user:secret@h.test/r.git?ref=v1&token=hush");
        assertThat(archive.toString()).doesNotContain("secret", "user", "hush").contains("h.test/x.zip", "sub");
        assertThat(git.toString()).doesNotContain("secret", "user", "hush").contains("h.test/r.git", "v1");
        assertThat(archive.url().getUserInfo()).isEqualTo("user:secret");
    }
}
