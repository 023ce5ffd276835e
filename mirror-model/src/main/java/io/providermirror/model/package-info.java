/**
 * The provider model every module names providers with: addresses, semantic versions, platforms and
 * version constraints; and how any module words a failure for a person ({@link io.providermirror.model.Urls},
 * {@link io.providermirror.model.PlainMessages}). Plain values with strict parsing; no I/O and no dependencies, so
 * any module may use it.
 */
package io.providermirror.model;
