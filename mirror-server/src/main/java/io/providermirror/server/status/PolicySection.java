package io.providermirror.server.status;

import io.providermirror.server.report.PolicyStatus;

/**
 * The status page's section on the policy: every deny rule with its reason, the release-age rules and overrides, and
 * the {@code allowEarly} exceptions with their expiry, each with what it holds back now (lets in, for an exception):
 * how many versions, and the first of them with when each becomes available.
 */
final class PolicySection {

    private PolicySection() {}

    static void render(StringBuilder html, PolicyStatus policy) {
        if (policy.rules().isEmpty()) {
            return;
        }
        html.append("<section><h2>Policy</h2><p>What the policy keeps out, and what it holds back now as far as this ")
                .append("instance has seen (versions refused, left out of lists or held back in the last day)");
        if (policy.dryRun()) {
            html.append(". The release-age quarantine is in <b>dry-run</b> mode (<code>policy.releaseAgeMode</code>): ")
                    .append("what it would hold back is let in, counted and logged");
        }
        html.append(".</p>\n<table id=\"policy\"><thead><tr><th>Rule</th><th>Kind</th><th>Matches</th>")
                .append("<th>Reason, age, expiry</th><th>Holds back now</th></tr></thead><tbody>\n");
        for (PolicyStatus.Rule rule : policy.rules()) {
            html.append("<tr><td><code>")
                    .append(PageHtml.escape(rule.id()))
                    .append("</code></td><td>")
                    .append(PageHtml.escape(rule.kind()))
                    .append("</td><td>")
                    .append(PageHtml.escape(rule.what()))
                    .append("</td><td>")
                    .append(PageHtml.escape(rule.detail()))
                    .append("</td><td>");
            held(html, rule);
            html.append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    private static void held(StringBuilder html, PolicyStatus.Rule rule) {
        PolicyStatus.Held held = rule.held();
        boolean exception = rule.kind().equals("allow early");
        html.append(held.count())
                .append(held.count() == 1 ? " version" : " versions")
                .append(exception ? " let in" : "");
        if (held.versions().isEmpty()) {
            return;
        }
        html.append("<ul>");
        for (PolicyStatus.HeldVersion version : held.versions()) {
            html.append("<li><code>").append(PageHtml.escape(version.subject())).append("</code>");
            version.until()
                    .ifPresent(until -> html.append(exception ? " (until " : " (available on ")
                            .append(PageHtml.TIME.format(until))
                            .append(")"));
            html.append("</li>");
        }
        if (held.count() > held.versions().size()) {
            html.append("<li class=\"muted\">and ")
                    .append(held.count() - held.versions().size())
                    .append(" more</li>");
        }
        html.append("</ul>");
    }
}
