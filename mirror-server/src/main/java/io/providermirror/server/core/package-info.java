/**
 * The pull-through core in plain Java: version lists, releases and archives answered from the cache when
 * it can and from the origin (verified, then cached) when it must, under the operator's policy. No Netty
 * types and no knowledge of listeners or commands.
 */
package io.providermirror.server.core;
