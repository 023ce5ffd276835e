/**
 * The pull-through engine in plain Java: the one fill of anything fetched from an origin (permits, leases, bounded
 * copies, remembered failures), the cache's documents and keys, the origins of hosts and their rules, and the
 * operator's policy. No Netty types, no knowledge of the faces ({@code server.face..}), the provider path
 * ({@code server.providers}), listeners or commands.
 */
package io.providermirror.server.core;
