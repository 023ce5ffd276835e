/**
 * The cache in an S3-compatible bucket: {@link io.providermirror.s3.S3BlobStore} and
 * {@link io.providermirror.s3.S3DocumentStore} behind mirror-cache's seams, with a local disk tier in front of the
 * bucket for hot archives. Knows nothing of the server or of origins.
 */
package io.providermirror.s3;
