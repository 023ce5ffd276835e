package io.providermirror.server.warm;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A progress bar per archive. On a terminal the bars of the archives in flight are redrawn in place a few
 * times a second, and each finished archive leaves one line above them. Elsewhere (CI logs, pipes) each
 * archive gets a line when it starts and one when it ends.
 */
final class ProgressDisplay implements AutoCloseable {

    private static final int BAR_WIDTH = 24;

    /** One archive's progress. */
    final class Bar implements WarmTarget.Progress {
        private final String name;
        private final long startNanos = System.nanoTime();
        private volatile long total = -1;
        private volatile long done;

        private Bar(String name) {
            this.name = name;
        }

        @Override
        public void started(long totalBytes) {
            total = totalBytes;
            if (!interactive) {
                print("  fetching " + name + (totalBytes >= 0 ? " (" + Warmer.size(totalBytes) + ")" : ""));
            }
        }

        @Override
        public void advanced(long bytesSoFar) {
            done = bytesSoFar;
        }

        long doneBytes() {
            return done;
        }

        /** Ends the bar with a word on how it went. */
        void finish(String outcome) {
            synchronized (ProgressDisplay.this) {
                active.remove(this);
            }
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            print(String.format(
                    Locale.ROOT,
                    "  %-8s %s%s",
                    outcome,
                    name,
                    done > 0 ? String.format(Locale.ROOT, "  %s in %.1f s", Warmer.size(done), seconds) : ""));
        }

        private String render() {
            long known = total;
            int filled = known > 0 ? (int) Math.min(BAR_WIDTH, BAR_WIDTH * done / known) : 0;
            String percent =
                    known > 0 ? String.format(Locale.ROOT, "%3d%%", Math.min(100, 100 * done / known)) : " ...";
            return "  [" + "#".repeat(filled) + "-".repeat(BAR_WIDTH - filled) + "] " + percent + " "
                    + Warmer.size(done) + (known > 0 ? "/" + Warmer.size(known) : "") + "  " + name;
        }
    }

    private final PrintStream out;
    private final boolean interactive;
    private final List<Bar> active = new ArrayList<>();
    private final ScheduledExecutorService ticker;
    private int drawnLines;

    ProgressDisplay(PrintStream out, boolean interactive) {
        this.out = out;
        this.interactive = interactive;
        if (interactive) {
            ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "warm-progress");
                thread.setDaemon(true);
                return thread;
            });
            ticker.scheduleAtFixedRate(this::redraw, 200, 200, TimeUnit.MILLISECONDS);
        } else {
            ticker = null;
        }
    }

    synchronized Bar start(String name) {
        Bar bar = new Bar(name);
        active.add(bar);
        return bar;
    }

    /** A line that stays, above the bars. */
    synchronized void print(String line) {
        clearBars();
        out.println(line);
        drawBars();
    }

    private synchronized void redraw() {
        clearBars();
        drawBars();
    }

    private void clearBars() {
        if (interactive && drawnLines > 0) {
            // Up to the first bar's line, and clear from there down.
            out.print("\u001b[" + drawnLines + "F\u001b[J");
        }
        drawnLines = 0;
    }

    private void drawBars() {
        if (!interactive) {
            return;
        }
        for (Bar bar : active) {
            out.println(bar.render());
        }
        drawnLines = active.size();
        out.flush();
    }

    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        clearBars();
        out.flush();
    }
}
