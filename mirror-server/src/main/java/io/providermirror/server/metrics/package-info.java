/**
 * Metrics: meter names and tags in one place, the recorders the core and the front end report to, and the
 * history behind the status page's traffic chart.
 */
package io.providermirror.server.metrics;
