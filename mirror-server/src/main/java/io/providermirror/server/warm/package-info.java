/**
 * Warming a cache: resolving which providers and versions to fetch (from configuration files, lock files
 * or lists) and fetching them through a mirror or straight into a cache directory.
 */
package io.providermirror.server.warm;
