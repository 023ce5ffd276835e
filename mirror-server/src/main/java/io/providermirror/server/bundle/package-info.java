/**
 * Moving a cache into a closed network: export writes verified releases and archives as a bundle, import
 * takes a bundle in after checking every piece of evidence again.
 */
package io.providermirror.server.bundle;
