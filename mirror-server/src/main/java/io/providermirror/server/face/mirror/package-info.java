/**
 * The network mirror face: {@code index.json} and {@code <version>.json} of the provider network mirror protocol,
 * over the shared provider path of {@code server.providers}. Knows no other face.
 */
package io.providermirror.server.face.mirror;
