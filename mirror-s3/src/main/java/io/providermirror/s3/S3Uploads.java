package io.providermirror.s3;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.StoreUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.Part;

/**
 * The commit of an archive to the bucket, so that a committed object is never partial: every upload carries
 * Content-MD5 (the bucket refuses bytes that do not match it) and the object's sha256 and size as metadata. An
 * archive up to one part is put to a temporary object under {@code <prefix>tmp/}, checked (size and metadata as
 * the bucket reports them) and only then copied to its key; the temporary object is removed whatever happens. A
 * larger one is a multipart upload to its key, completed only after the parts the bucket holds were checked
 * against the parts sent (an incomplete multipart upload is invisible, and aborted on failure).
 */
final class S3Uploads {

    /** Opens the archive's content from its start, once per attempt. */
    @FunctionalInterface
    interface Content {
        SeekableByteChannel open() throws IOException;
    }

    static final String SHA256 = "sha256";
    static final String SIZE = "size";

    private static final Logger LOG = LoggerFactory.getLogger(S3Uploads.class);

    private final S3Bucket bucket;
    private final int partBytes;

    /** @param partBytes the largest archive put in one request, and the size of each part of larger ones */
    S3Uploads(S3Bucket bucket, int partBytes) {
        this.bucket = bucket;
        this.partBytes = partBytes;
    }

    /** Makes {@code content} the object of {@code key}, or fails leaving that object as it was. */
    void upload(CacheKey key, Content content, long size, String sha256) throws IOException {
        Map<String, String> metadata = Map.of(SHA256, sha256, SIZE, Long.toString(size));
        if (size <= partBytes) {
            putThroughTemporary(bucket.blobObject(key), content, size, metadata);
        } else {
            multipart(bucket.blobObject(key), content, size, metadata);
        }
    }

    private void putThroughTemporary(String target, Content content, long size, Map<String, String> metadata)
            throws IOException {
        byte[] bytes = readAll(content, size);
        String temporary = bucket.newTemporaryObject();
        try {
            bucket.call(
                    "put",
                    temporary,
                    () -> bucket.client()
                            .putObject(
                                    b -> b.bucket(bucket.name())
                                            .key(temporary)
                                            .contentMD5(Md5.base64(bytes))
                                            .metadata(metadata),
                                    RequestBody.fromBytes(bytes)));
            HeadObjectResponse head = bucket.call(
                    "head",
                    temporary,
                    () -> bucket.client()
                            .headObject(b -> b.bucket(bucket.name()).key(temporary)));
            check(temporary, head, size, metadata);
            bucket.call(
                    "copy",
                    target,
                    () -> bucket.client()
                            .copyObject(b -> b.sourceBucket(bucket.name())
                                    .sourceKey(temporary)
                                    .destinationBucket(bucket.name())
                                    .destinationKey(target)
                                    .metadataDirective(MetadataDirective.REPLACE)
                                    .metadata(metadata)));
        } finally {
            try {
                bucket.call(
                        "delete",
                        temporary,
                        () -> bucket.client()
                                .deleteObject(b -> b.bucket(bucket.name()).key(temporary)));
            } catch (StoreUnavailableException e) {
                LOG.warn("cannot remove temporary object {}: {}", temporary, e.getMessage());
            }
        }
        HeadObjectResponse committed = bucket.call(
                "head",
                target,
                () -> bucket.client().headObject(b -> b.bucket(bucket.name()).key(target)));
        check(target, committed, size, metadata);
    }

    private void check(String object, HeadObjectResponse head, long size, Map<String, String> metadata)
            throws IOException {
        if (head.contentLength() == null
                || head.contentLength() != size
                || !metadata.get(SHA256).equals(head.metadata().get(SHA256))) {
            throw new IOException("S3 bucket '" + bucket.name() + "': " + object + " holds " + head.contentLength()
                    + " bytes with sha256 " + head.metadata().get(SHA256) + " after an upload of " + size
                    + " bytes with sha256 " + metadata.get(SHA256));
        }
    }

    private static byte[] readAll(Content content, long size) throws IOException {
        byte[] bytes = new byte[Math.toIntExact(size)];
        try (SeekableByteChannel channel = content.open()) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                if (channel.read(buffer) < 0) {
                    throw new IOException("the archive ended after " + buffer.position() + " of " + size + " bytes");
                }
            }
        }
        return bytes;
    }

    private void multipart(String target, Content content, long size, Map<String, String> metadata) throws IOException {
        String uploadId = bucket.call(
                        "multipart",
                        target,
                        () -> bucket.client()
                                .createMultipartUpload(
                                        b -> b.bucket(bucket.name()).key(target).metadata(metadata)))
                .uploadId();
        boolean completed = false;
        try {
            List<CompletedPart> sent = sendParts(target, uploadId, content, size);
            verifyParts(target, uploadId, sent, size);
            bucket.call(
                    "multipart",
                    target,
                    () -> bucket.client()
                            .completeMultipartUpload(b -> b.bucket(bucket.name())
                                    .key(target)
                                    .uploadId(uploadId)
                                    .multipartUpload(m -> m.parts(sent))));
            completed = true;
        } finally {
            if (!completed) {
                try {
                    bucket.call(
                            "multipart",
                            target,
                            () -> bucket.client()
                                    .abortMultipartUpload(b ->
                                            b.bucket(bucket.name()).key(target).uploadId(uploadId)));
                } catch (StoreUnavailableException e) {
                    LOG.warn("cannot abort the multipart upload of {}: {}", target, e.getMessage());
                }
            }
        }
        HeadObjectResponse committed = bucket.call(
                "head",
                target,
                () -> bucket.client().headObject(b -> b.bucket(bucket.name()).key(target)));
        check(target, committed, size, metadata);
    }

    private List<CompletedPart> sendParts(String target, String uploadId, Content content, long size)
            throws IOException {
        List<CompletedPart> parts = new ArrayList<>();
        byte[] part = new byte[partBytes];
        try (SeekableByteChannel channel = content.open();
                InputStream in = Channels.newInputStream(channel)) {
            long sent = 0;
            int number = 1;
            while (sent < size) {
                int length = in.readNBytes(part, 0, (int) Math.min(partBytes, size - sent));
                if (length == 0) {
                    throw new IOException("the archive ended after " + sent + " of " + size + " bytes");
                }
                byte[] md5 = Md5.digest().digest(java.util.Arrays.copyOf(part, length));
                int partNumber = number;
                int partLength = length;
                String etag = bucket.call(
                                "multipart",
                                target,
                                () -> bucket.client()
                                        .uploadPart(
                                                b -> b.bucket(bucket.name())
                                                        .key(target)
                                                        .uploadId(uploadId)
                                                        .partNumber(partNumber)
                                                        .contentLength((long) partLength)
                                                        .contentMD5(Base64.getEncoder()
                                                                .encodeToString(md5)),
                                                RequestBody.fromContentProvider(
                                                        ContentStreamProvider.fromByteArrayUnsafe(
                                                                java.util.Arrays.copyOf(part, partLength)),
                                                        partLength,
                                                        "application/octet-stream")))
                        .eTag();
                parts.add(CompletedPart.builder()
                        .partNumber(partNumber)
                        .eTag(etag)
                        .build());
                sent += length;
                number++;
            }
        }
        return parts;
    }

    /** The parts the bucket holds for the upload are exactly those sent, adding up to the archive's size. */
    private void verifyParts(String target, String uploadId, List<CompletedPart> sent, long size) throws IOException {
        List<Part> held = bucket.call(
                        "multipart",
                        target,
                        () -> bucket.client()
                                .listParts(
                                        b -> b.bucket(bucket.name()).key(target).uploadId(uploadId)))
                .parts();
        long total = held.stream().mapToLong(Part::size).sum();
        List<String> heldTags = held.stream().map(Part::eTag).toList();
        List<String> sentTags = sent.stream().map(CompletedPart::eTag).toList();
        if (total != size || !heldTags.equals(sentTags)) {
            throw new IOException("S3 bucket '" + bucket.name() + "': the multipart upload of " + target + " holds "
                    + held.size() + " parts of " + total + " bytes after " + sent.size() + " parts of " + size
                    + " bytes were sent");
        }
    }
}
