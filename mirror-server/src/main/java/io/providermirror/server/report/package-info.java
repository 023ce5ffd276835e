/**
 * What the mirror reports about itself, as values: {@link io.providermirror.server.report.MirrorStatus} (the
 * cache, the hit rate, the origins' health, the recent problems, the last hour's traffic, the cached providers and
 * modules) and {@link io.providermirror.server.report.ProviderStatus} (one provider's cached versions), made in one
 * place ({@link io.providermirror.server.report.StatusReports}) and written as JSON in one place
 * ({@link io.providermirror.server.report.StatusDocuments}). The operator API serves them ({@code GET
 * /api/v1/status}), and the status page renders from the same values: it reads no engine class itself.
 */
package io.providermirror.server.report;
