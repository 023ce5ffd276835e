/**
 * Module sources fetched with git: {@link io.providermirror.upstream.git.GitSource} clones a ref over HTTPS and
 * {@link io.providermirror.upstream.git.TreeArchive} packs the checkout into a deterministic {@code .tar.gz}.
 */
package io.providermirror.upstream.git;
