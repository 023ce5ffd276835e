package io.providermirror.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.ConditionalFillLeases;
import io.providermirror.cache.FillLease;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Fill leases on a real S3 API (S3Proxy 3.0.0 on loopback): its conditional writes, measured. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class S3LeaseObjectsTest {

    private static final CacheKey KEY = CacheKey.of("providers", "example.com", "ns", "type", "1.0.0", "a.zip");
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final S3Fixture fixture = new S3Fixture();
    private final SettableClock clock = new SettableClock();

    @BeforeAll
    void startS3() throws IOException {
        fixture.start();
    }

    @AfterAll
    void stopS3() throws IOException {
        fixture.close();
    }

    @BeforeEach
    void freshPrefix() {
        fixture.newPrefix();
    }

    private S3LeaseObjects objects() {
        return new S3LeaseObjects(fixture.bucket());
    }

    private ConditionalFillLeases instance(String holder) throws IOException {
        return ConditionalFillLeases.open(objects(), holder, LEASE, clock);
    }

    @Test
    void s3ProxyRefusesASecondCreateAndAReplaceOfAnotherEtagWith412() throws IOException {
        S3LeaseObjects objects = objects();
        byte[] content = "x".getBytes(StandardCharsets.UTF_8);

        Optional<String> etag = objects.createIfAbsent("leases/measure", content);
        assertThat(etag).isPresent();
        assertThat(objects.createIfAbsent("leases/measure", content)).isEmpty();
        assertThat(objects.replaceIfMatch("leases/measure", content, "\"0123\""))
                .isEmpty();
        assertThat(objects.replaceIfMatch("leases/measure", content, etag.get()))
                .isPresent();
        assertThat(objects.read("leases/measure").orElseThrow().content()).isEqualTo(content);
        assertThat(instance("a").exclusive()).isTrue();
    }

    @Test
    void ofEightInstancesAskingAtOnceExactlyOneGetsTheLease() throws Exception {
        List<ConditionalFillLeases> fleet = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            fleet.add(instance("instance-" + i));
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Optional<FillLease>>> results = new ArrayList<>();
            for (ConditionalFillLeases leases : fleet) {
                results.add(pool.submit(() -> leases.tryAcquire(KEY)));
            }
            int granted = 0;
            for (Future<Optional<FillLease>> result : results) {
                granted += result.get(90, TimeUnit.SECONDS).isPresent() ? 1 : 0;
            }
            assertThat(granted).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anExpiredLeaseIsTakenOverOnceAndItsFormerHolderLearnsIt() throws IOException {
        FillLease old = instance("a").tryAcquire(KEY).orElseThrow();
        ConditionalFillLeases b = instance("b");
        ConditionalFillLeases c = instance("c");
        assertThat(b.tryAcquire(KEY)).isEmpty();

        clock.advance(LEASE.plusSeconds(1));
        FillLease taken = b.tryAcquire(KEY).orElseThrow();

        assertThat(taken.takenOver()).isTrue();
        assertThat(c.tryAcquire(KEY)).as("b's lease is live").isEmpty();
        assertThat(old.renew()).isFalse();
        old.release();
        assertThat(c.tryAcquire(KEY)).as("a's release left b's lease").isEmpty();
        taken.release();
        assertThat(c.tryAcquire(KEY)).isPresent();
    }

    @Test
    void anUnreachableStoreIsAnErrorNamingTheBucketNotARefusal() throws IOException {
        ConditionalFillLeases leases = instance("a");
        fixture.server().stop();
        try {
            assertThatThrownBy(() -> leases.tryAcquire(KEY))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("S3 bucket '" + S3Fixture.BUCKET + "'");
        } finally {
            fixture.server().start();
        }
    }
}
