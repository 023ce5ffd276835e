package io.providermirror.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

final class UrlsTest {

    @Test
    void aUrlLosesItsQueryFragmentAndUserInformationButKeepsWhereItPoints() {
        assertThat(Urls.redacted(URI.create("https://user:pw@bucket.s3.example:8443/a/b.zip?X-Amz-Signature=s#f")))
                .isEqualTo("https://bucket.s3.example:8443/a/b.zip?[redacted]");
        assertThat(Urls.redacted(URI.create("https://example.test/a/b.zip"))).isEqualTo("https://example.test/a/b.zip");
        assertThat(Urls.redacted(URI.create("https://example.test/a#only-a-fragment")))
                .isEqualTo("https://example.test/a");
    }

    @Test
    void everyUrlInATextIsRedactedAndTheRestKept() {
        assertThat(Urls.redactedIn("acme/x 1.0.0: https://h.test/x.zip?token=s answered HTTP 403 after "
                        + "'HTTP://other.test/y?sig=t', <https://u:p@z.test/> and \"https://q.test/?a=b\""))
                .isEqualTo("acme/x 1.0.0: https://h.test/x.zip?[redacted] answered HTTP 403 after "
                        + "'HTTP://other.test/y?[redacted]', <https://z.test/> and \"https://q.test/?[redacted]\"");
        assertThat(Urls.redactedIn("no URL here?a=b")).isEqualTo("no URL here?a=b");
        assertThat(Urls.redactedIn(null)).isNull();
    }

    @Test
    void redactingInsideJsonKeepsItsEscapes() {
        assertThat(Urls.redactedIn("{\"m\":\"get https://h.test/x?s=1\\\" done\"}"))
                .isEqualTo("{\"m\":\"get https://h.test/x?[redacted]\\\" done\"}");
    }
}
