package io.providermirror.server.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import io.providermirror.server.logging.LogFormats;
import java.io.OutputStream;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.slf4j.Logger;

/**
 * One access-log line, from the request's head to the bytes of the text format (what {@link ExchangeLog} and the
 * access log's writer thread do per request, here on one thread into a stream that discards them): the request's
 * path and {@code User-Agent} made printable, then the line logged with its fields. Beside it, the way it was
 * done before: every text copied while it was made printable, and the line a pattern with nine arguments that the
 * writer formatted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AccessLineBenchmark {

    private static final String PATH = "/v1/modules/registry.terraform.io/hashicorp/consul/aws/0.12.0/download";
    private static final String USER_AGENT = "Terraform/1.11.4 (+https://www.terraform.io)";

    private LoggerContext context;
    private Logger access;

    @Setup
    public void setUp() {
        context = new LoggerContext();
        // As logback's SLF4J provider makes the mirror's context: without one, every event's MDC throws.
        context.setMDCAdapter(new LogbackMDCAdapter());
        OutputStreamAppender<ILoggingEvent> discard = new OutputStreamAppender<>();
        discard.setContext(context);
        discard.setEncoder(LogFormats.textEncoder(context));
        discard.setImmediateFlush(false);
        discard.setOutputStream(OutputStream.nullOutputStream());
        discard.start();
        ch.qos.logback.classic.Logger logger = context.getLogger(ExchangeLog.LOGGER);
        logger.setAdditive(false);
        logger.setLevel(Level.INFO);
        logger.addAppender(discard);
        access = logger;
    }

    @TearDown
    public void tearDown() {
        context.stop();
    }

    @Benchmark
    public void accessLine() {
        ExchangeLog.Exchange exchange = new ExchangeLog.Exchange(
                1, "GET", ExchangeLog.printable(PATH, 1024), ExchangeLog.printable(USER_AGENT, 256));
        exchange.status = 204;
        exchange.route = "module-download";
        ExchangeLog.log(access, "127.0.0.1", exchange, 0, false);
    }

    @Benchmark
    public void replaced() {
        String path = copiedPrintable(PATH, 1024);
        String userAgent = copiedPrintable(USER_AGENT, 256);
        access.atInfo()
                .addKeyValue("client", "127.0.0.1")
                .addKeyValue("method", "GET")
                .addKeyValue("path", path)
                .addKeyValue("status", 204)
                .addKeyValue("bytes", 0L)
                .addKeyValue("durationMs", 0L)
                .addKeyValue("userAgent", userAgent)
                .addKeyValue("route", "module-download")
                .addKeyValue("clientName", "anonymous")
                .addKeyValue("aborted", false)
                .log(
                        "{} {} \"{} {}\" {} {} {}ms \"{}\"{}",
                        "127.0.0.1",
                        "anonymous",
                        "GET",
                        path,
                        204,
                        0L,
                        0L,
                        userAgent,
                        "");
    }

    /** {@link ExchangeLog#printable} as it was: the same text, always copied. */
    private static String copiedPrintable(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 8);
        for (int i = 0; i < text.length() && out.length() < max; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                out.append(String.format("\\x%02x", (int) c & 0xff));
            } else {
                out.append(c);
            }
        }
        if (out.length() >= max && text.length() > max) {
            out.append("...");
        }
        return out.toString();
    }
}
