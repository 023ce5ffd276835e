package io.providermirror.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What the threads of a quiet group log stays out of the log while it is quiet; everyone else's goes in. */
final class QuietThreadsTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(QuietThreadsTest.class);

    @Test
    void theGroupsThreadsAndThoseTheyStartAreQuietUntilClosedOthersNever() throws Exception {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        ThreadGroup group = new ThreadGroup("quiet-test");
        try {
            QuietThreads quiet = QuietThreads.of(group);
            inGroup(group, () -> {
                logger.info("from the group");
                // A pool made by one of the group's threads makes its threads in that group.
                ExecutorService pool = Executors.newSingleThreadExecutor();
                try {
                    pool.submit(() -> logger.info("from a pool the group made")).get(1, TimeUnit.MINUTES);
                } finally {
                    pool.shutdown();
                }
            });
            logger.info("from outside while quiet");
            quiet.close();
            inGroup(group, () -> logger.info("from the group once closed"));
        } finally {
            logger.detachAppender(logged);
        }

        assertThat(logged.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("from outside while quiet", "from the group once closed");
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void inGroup(ThreadGroup group, Step step) throws Exception {
        Exception[] failed = new Exception[1];
        Thread thread = new Thread(
                group,
                () -> {
                    try {
                        step.run();
                    } catch (Exception e) {
                        failed[0] = e;
                    }
                },
                "in-group");
        thread.start();
        thread.join();
        if (failed[0] != null) {
            throw failed[0];
        }
    }
}
