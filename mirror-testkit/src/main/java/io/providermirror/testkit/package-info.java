/**
 * Test fixtures shared by the modules' tests and benchmarks: an in-process origin registry, signing keys,
 * certificates, provider zips, a module registry with module archives, a git server over HTTPS and misbehaving
 * servers, all on loopback.
 */
package io.providermirror.testkit;
