/**
 * Test fixtures shared by the modules' tests and benchmarks: an in-process origin registry, signing keys,
 * certificates, provider zips and misbehaving servers, all on loopback.
 */
package io.providermirror.testkit;
