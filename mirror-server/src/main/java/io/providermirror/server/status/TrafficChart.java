package io.providermirror.server.status;

import io.providermirror.server.report.MirrorStatus;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The status page's "last hour" charts as inline SVG, drawn on the server (no script, no toolchain): one bar
 * per minute for provider requests, the share the cache answered, and archive bytes served. Each bar carries
 * its minute and value as a tooltip.
 */
final class TrafficChart {

    private static final DateTimeFormatter MINUTE =
            DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final int WIDTH = 360;
    private static final int HEIGHT = 96;
    private static final int PLOT_TOP = 16;
    private static final int PLOT_BOTTOM = 80;

    private TrafficChart() {}

    static void render(StringBuilder html, List<MirrorStatus.Minute> minutes) {
        long requests =
                minutes.stream().mapToLong(MirrorStatus.Minute::requests).sum();
        long hits = minutes.stream().mapToLong(MirrorStatus.Minute::hits).sum();
        long bytes = minutes.stream().mapToLong(MirrorStatus.Minute::bytes).sum();
        html.append("<section><h2>Last hour</h2><div class=\"charts\">");
        panel(
                html,
                "chart-requests",
                "Requests",
                requests + " in the last hour",
                minutes,
                MirrorStatus.Minute::requests,
                0,
                "#0a5bd3",
                value -> String.format(Locale.ROOT, "%.0f requests", value));
        panel(
                html,
                "chart-hit-rate",
                "Hit rate",
                requests == 0
                        ? "no requests"
                        : String.format(Locale.ROOT, "%.1f%% from the cache", 100.0 * hits / requests),
                minutes,
                m -> m.requests() == 0 ? Double.NaN : (double) m.hits() / m.requests(),
                1,
                "#1a7f37",
                value -> String.format(Locale.ROOT, "%.0f%% hits", 100 * value));
        panel(
                html,
                "chart-bytes",
                "Bytes served",
                PageHtml.bytes(bytes) + " in the last hour",
                minutes,
                MirrorStatus.Minute::bytes,
                0,
                "#6e40c9",
                value -> PageHtml.bytes((long) value));
        html.append("</div></section>\n");
    }

    /**
     * One chart: a bar per minute, scaled to {@code fixedMax} or, when it is 0, to the largest value; minutes
     * whose value is NaN (no requests, so no hit rate) get no bar.
     */
    private static void panel(
            StringBuilder html,
            String id,
            String title,
            String total,
            List<MirrorStatus.Minute> minutes,
            ToDoubleFunction<MirrorStatus.Minute> value,
            double fixedMax,
            String colour,
            java.util.function.DoubleFunction<String> label) {
        double max = fixedMax;
        if (max == 0) {
            for (MirrorStatus.Minute minute : minutes) {
                max = Math.max(max, value.applyAsDouble(minute));
            }
        }
        html.append("<figure><figcaption><b>")
                .append(title)
                .append("</b> &middot; ")
                .append(PageHtml.escape(total))
                .append("</figcaption><svg id=\"")
                .append(id)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" role=\"img\" aria-label=\"")
                .append(title)
                .append(" per minute\">");
        html.append("<line x1=\"0\" y1=\"")
                .append(PLOT_BOTTOM)
                .append("\" x2=\"")
                .append(WIDTH)
                .append("\" y2=\"")
                .append(PLOT_BOTTOM)
                .append("\" stroke=\"#c7c7cc\"/>");
        double slot = (double) WIDTH / minutes.size();
        for (int i = 0; i < minutes.size(); i++) {
            MirrorStatus.Minute minute = minutes.get(i);
            double v = value.applyAsDouble(minute);
            if (Double.isNaN(v) || v <= 0 && fixedMax == 0) {
                continue;
            }
            double height = max <= 0 ? 0 : Math.max(1, (PLOT_BOTTOM - PLOT_TOP) * v / max);
            html.append(String.format(
                            Locale.ROOT,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
                            i * slot + 0.5,
                            PLOT_BOTTOM - height,
                            slot - 1,
                            height,
                            colour))
                    .append("<title>")
                    .append(MINUTE.format(minute.start()))
                    .append(" UTC: ")
                    .append(PageHtml.escape(label.apply(v)))
                    .append("</title></rect>");
        }
        html.append("<text x=\"0\" y=\"")
                .append(HEIGHT - 2)
                .append("\" font-size=\"10\" fill=\"#6e6e73\">")
                .append(minutes.size())
                .append(" min ago</text>")
                .append("<text x=\"")
                .append(WIDTH)
                .append("\" y=\"")
                .append(HEIGHT - 2)
                .append("\" font-size=\"10\" fill=\"#6e6e73\" text-anchor=\"end\">now</text>");
        if (max > 0) {
            html.append("<text x=\"")
                    .append(WIDTH)
                    .append("\" y=\"")
                    .append(PLOT_TOP - 5)
                    .append("\" font-size=\"10\" fill=\"#6e6e73\" text-anchor=\"end\">max ")
                    .append(PageHtml.escape(label.apply(max)))
                    .append("</text>");
        }
        html.append("</svg></figure>");
    }
}
