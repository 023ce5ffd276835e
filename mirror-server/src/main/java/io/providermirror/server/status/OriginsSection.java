package io.providermirror.server.status;

import io.providermirror.server.report.MirrorStatus;
import io.providermirror.server.report.StatusReports;
import java.util.List;

/**
 * The status page's origins: each origin by its hostname (as provider addresses name it), where it is reached
 * when the operator configured that, its health (verification failures count), the authorities contacted for
 * it; then the recent problems of every origin. Configured origins are listed before they are first used.
 */
final class OriginsSection {

    private final PageHtml page;

    OriginsSection(PageHtml page) {
        this.page = page;
    }

    void render(StringBuilder html, MirrorStatus status) {
        html.append("<section><h2>Origins</h2>");
        if (status.origins().isEmpty()) {
            html.append("<p class=\"muted\">No origin contacted since start-up.</p>");
        } else {
            table(html, status.origins());
        }
        problems(html, status.problems());
        html.append("</section>\n");
    }

    private void table(StringBuilder html, List<MirrorStatus.Origin> origins) {
        html.append("<table id=\"origins\"><thead><tr><th>Origin</th><th>Health</th>")
                .append("<th>Requests ok / failed</th><th>Refused by verification</th><th>Last success</th>")
                .append("<th>Last failure</th></tr></thead><tbody>\n");
        for (MirrorStatus.Origin origin : origins) {
            String name = origin.origin();
            html.append("<tr><td><code>").append(PageHtml.escape(name)).append("</code>");
            if (origin.reachedAt() != null) {
                html.append("<div class=\"muted small\">")
                        .append(PageHtml.escape(origin.reachedAt()))
                        .append("</div>");
            }
            if (!origin.used()) {
                html.append("</td><td class=\"muted\">not used yet</td><td>&ndash;</td><td>&ndash;</td>")
                        .append("<td>&ndash;</td><td>&ndash;</td></tr>\n");
                continue;
            }
            if (!origin.contacted().equals(List.of(name))) {
                html.append("<div class=\"muted small\">contacted: ")
                        .append(PageHtml.escape(String.join(", ", origin.contacted())))
                        .append("</div>");
            }
            html.append("</td><td>")
                    .append(
                            origin.healthy()
                                    ? "<span class=\"ok\">healthy</span>"
                                    : "<span class=\"bad\">failing</span>")
                    .append("</td><td>")
                    .append(origin.requestsOk())
                    .append(" / ")
                    .append(origin.requestsFailed())
                    .append("</td><td>")
                    .append(
                            origin.refusedByVerification() == 0
                                    ? "0"
                                    : "<span class=\"bad\">" + origin.refusedByVerification() + "</span>")
                    .append("</td><td>")
                    .append(page.ago(origin.lastSuccess()))
                    .append("</td><td>")
                    .append(page.ago(origin.lastFailure()));
            if (origin.lastFailureMessage() != null) {
                html.append("<div class=\"muted small\">")
                        .append(PageHtml.escape(origin.lastFailureMessage()))
                        .append("</div>");
            }
            html.append("</td></tr>\n");
        }
        html.append("</tbody></table>\n");
    }

    private void problems(StringBuilder html, List<MirrorStatus.Problem> problems) {
        html.append("<h3>Recent problems</h3>");
        if (problems.isEmpty()) {
            html.append("<p class=\"muted\" id=\"no-problems\">None since start-up.</p>");
            return;
        }
        html.append("<p class=\"muted small\">The last ")
                .append(StatusReports.RECENT_PROBLEMS)
                .append(" at most, newest first, each once with how often it happened (a CLI's retries of one ")
                .append("failure are one row); the log has every one.</p>")
                .append("<table id=\"problems\"><thead><tr><th>Last seen</th><th>Origin</th>")
                .append("<th>Provider or module</th><th>What failed</th><th>Times</th></tr></thead><tbody>\n");
        for (MirrorStatus.Problem problem : problems) {
            html.append("<tr><td>")
                    .append(page.ago(problem.lastSeen()))
                    .append("</td><td><code>")
                    .append(PageHtml.escape(problem.origin()))
                    .append("</code></td><td>")
                    .append(
                            problem.subject() == null
                                    ? "&ndash;"
                                    : "<code>" + PageHtml.escape(problem.subject()) + "</code>")
                    .append("</td><td class=\"small wrap\">")
                    .append(PageHtml.escape(problem.what()))
                    .append("</td><td class=\"count\">")
                    .append(problem.count())
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table>\n");
    }
}
