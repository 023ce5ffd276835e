package io.providermirror.server.core;

import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.ServiceDiscovery;

/**
 * The ways the mirror reaches origins: service discovery and the provider registry protocol for most hosts,
 * and the network mirror protocol for hosts a parent mirror stands in for.
 */
public record Upstream(ServiceDiscovery discovery, RegistryClient registry, ParentMirrorClient parents) {
}
