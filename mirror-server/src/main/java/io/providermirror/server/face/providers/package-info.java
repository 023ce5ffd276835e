/**
 * The {@code providers.v1} face: the provider registry protocol (version lists with platforms, download documents
 * with the origin's SHA256SUMS and signature) over the verified releases of {@code server.providers}. Knows no
 * other face.
 */
package io.providermirror.server.face.providers;
