package io.providermirror.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Keeps out of the log whatever the threads of one thread group log, for as long as it is open: for work the mirror
 * does on its own account whose every step would otherwise read like a client's (the start-up rehearsal's requests,
 * fetches and access lines). A thread belongs to the group it was made in, so the threads a piece of work starts
 * (its event loops, pools and clients) are kept quiet with it. Added to logback's context, not to a configuration,
 * so it holds whatever configuration the operator gave; without logback (another SLF4J backend) nothing is kept out.
 * A thread of the JVM's own shared pools (the common fork-join pool, Netty's global executor) that one of the
 * group's threads happened to start belongs to the group too: while it is quiet, what such a thread logs for others
 * is kept out as well. The mirror gives its work executors of its own, so none of its lines go that way.
 */
public final class QuietThreads implements AutoCloseable {

    private final LoggerContext context;
    private final TurboFilter filter;

    private QuietThreads(LoggerContext context, TurboFilter filter) {
        this.context = context;
        this.filter = filter;
    }

    /** Keeps what the threads of {@code group} (and of the groups within it) log out of the log until closed. */
    public static QuietThreads of(ThreadGroup group) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return new QuietThreads(null, null);
        }
        TurboFilter filter = new TurboFilter() {
            @Override
            public FilterReply decide(
                    Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
                ThreadGroup current = Thread.currentThread().getThreadGroup();
                return current != null && group.parentOf(current) ? FilterReply.DENY : FilterReply.NEUTRAL;
            }
        };
        filter.setName("quiet " + group.getName());
        filter.start();
        context.addTurboFilter(filter);
        return new QuietThreads(context, filter);
    }

    @Override
    public void close() {
        if (context != null) {
            context.getTurboFilterList().remove(filter);
            filter.stop();
        }
    }
}
