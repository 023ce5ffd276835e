package io.providermirror.server.app;

import io.providermirror.upstream.OriginCredentials;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.ServiceDiscovery;

/**
 * What the wiring talks to origins with: the one client (every hop's destination checked), the one service
 * discovery for every service of every host, and the origins' tokens.
 */
record OriginAccess(OriginHttpClient http, ServiceDiscovery discovery, OriginCredentials tokens) {}
