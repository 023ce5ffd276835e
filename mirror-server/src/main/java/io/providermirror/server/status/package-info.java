/**
 * What people and probes read: the status page, the CLI configuration block to paste, and the operations
 * endpoints (metrics, health, readiness).
 */
package io.providermirror.server.status;
