/**
 * The provider model every module names providers with: addresses, semantic versions, platforms and
 * version constraints. Plain values with strict parsing; no I/O and no dependencies, so any module may use it.
 */
package io.providermirror.model;
