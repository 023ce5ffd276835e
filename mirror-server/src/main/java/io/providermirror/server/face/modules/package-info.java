/**
 * The {@code modules.v1} face: registry modules (version lists, downloads, archives of https sources and git
 * trees, pins), fetched through the engine's fills. Knows no other face.
 */
package io.providermirror.server.face.modules;
