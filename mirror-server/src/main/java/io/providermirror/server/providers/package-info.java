/**
 * The provider path both provider faces answer from: version lists, verified releases and their archives
 * ({@link io.providermirror.server.providers.ProviderMirror}), on the engine of {@code server.core}. Knows no face.
 */
package io.providermirror.server.providers;
