/**
 * JMH benchmarks of the hot code: package hashes, route parsing, version document rendering. {@code bench/jmh.sh}
 * runs them; {@code bench/compare.sh} measures the whole server beside nginx.
 */
package io.providermirror.bench;
