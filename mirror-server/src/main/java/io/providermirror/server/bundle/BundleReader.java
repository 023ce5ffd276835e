package io.providermirror.server.bundle;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.server.bundle.BundleImporter.RefusedException;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.OriginJson;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;

/**
 * Reads a bundle's tar against its manifest and within bounds: every entry must be listed once with its size and
 * sha256, is read to at most one byte past that size (so an oversized entry cannot fill memory or disk before it
 * is refused), and all documents together stay under a limit, as they are held in memory until the bundle verified.
 */
final class BundleReader {

    private static final int MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

    private final BlobStore blobs;
    private final long maxDocumentsTotalBytes;

    BundleReader(BlobStore blobs, long maxDocumentsTotalBytes) {
        this.blobs = blobs;
        this.maxDocumentsTotalBytes = maxDocumentsTotalBytes;
    }

    /** The bundle's contents, each entry checked against the manifest; its archives staged, not committed. */
    BundleContents read(Path bundle) throws IOException {
        try (BundleFiles.StreamEnd file = BundleFiles.open(bundle);
                BundleTar tar = new BundleTar(BundleFiles.read(file))) {
            BundleContents contents = new BundleContents(manifest(bundle, tar));
            try {
                readEntries(bundle, tar, contents);
                return contents;
            } catch (IOException | RuntimeException e) {
                contents.close();
                throw e;
            }
        }
    }

    private static BundleManifest manifest(Path bundle, BundleTar tar) throws IOException {
        TarArchiveEntry first = tar.getNextEntry();
        if (first == null || !first.getName().equals(BundleManifest.PATH) || !first.isFile() || first.isLink()) {
            throw new RefusedException(
                    bundle + " is not a provider-mirror bundle: it does not begin with " + BundleManifest.PATH);
        }
        BundleManifest manifest;
        try {
            manifest = OriginJson.readValue(bounded(tar, first, MAX_DOCUMENT_BYTES), BundleManifest.class);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new RefusedException(bundle + ": the manifest is not valid: " + e.getOriginalMessage());
        }
        if (manifest.format() != BundleManifest.FORMAT) {
            throw new RefusedException(bundle + " has bundle format " + manifest.format() + "; this mirror reads "
                    + BundleManifest.FORMAT);
        }
        return manifest;
    }

    private void readEntries(Path bundle, BundleTar tar, BundleContents contents) throws IOException {
        Map<String, BundleManifest.Entry> expected = new LinkedHashMap<>();
        contents.manifest().entries().forEach(entry -> expected.put(entry.path(), entry));
        Set<String> read = new LinkedHashSet<>();
        long documentBytes = 0;
        TarArchiveEntry entry;
        while ((entry = tar.getNextEntry()) != null) {
            String name = entry.getName();
            refuseNonFile(bundle, entry);
            BundleManifest.Entry declared = expected.get(name);
            if (declared == null || !read.add(name)) {
                throw new RefusedException(
                        bundle + ": the entry " + name + " is not in the manifest, or is there twice");
            }
            CacheKey key = key(name);
            if (entry.getSize() != declared.size()) {
                throw new RefusedException(bundle + ": the entry " + name + " is " + entry.getSize()
                        + " bytes in the tar, but the manifest says " + declared.size());
            }
            if (name.endsWith(".zip") || isModuleArchive(key)) {
                contents.archives().put(key, stage(tar, key, declared));
            } else {
                documentBytes += declared.size();
                if (documentBytes > maxDocumentsTotalBytes) {
                    throw new RefusedException(bundle + ": its documents (version lists and release evidence) "
                            + "add up to more than " + maxDocumentsTotalBytes + " bytes, more than a bundle may "
                            + "hold; split it into several bundles");
                }
                byte[] bytes = bounded(tar, entry, declared.size());
                check(declared, bytes.length, BundleFiles.sha256(bytes));
                contents.documents().write(key, bytes);
            }
        }
        refuseMissing(bundle, List.copyOf(expected.keySet()), read);
    }

    /**
     * Refuses a link, a directory or a device: a bundle holds plain files only. Names are checked as cache keys
     * ({@link #key}); nothing in a bundle is ever written where its name says, but a link is a bundle made to harm.
     */
    private static void refuseNonFile(Path bundle, TarArchiveEntry entry) throws RefusedException {
        if (!entry.isFile()
                || entry.isLink()
                || entry.isSymbolicLink()
                || entry.isCharacterDevice()
                || entry.isBlockDevice()
                || entry.isFIFO()) {
            throw new RefusedException(bundle + ": the entry " + entry.getName() + " is "
                    + (entry.isLink() || entry.isSymbolicLink() ? "a link" : "not a plain file")
                    + "; a bundle holds plain files only");
        }
    }

    private static void refuseMissing(Path bundle, List<String> listed, Set<String> read) throws RefusedException {
        List<String> missing =
                listed.stream().filter(name -> !read.contains(name)).toList();
        if (missing.isEmpty()) {
            return;
        }
        // Export writes the entries in the manifest's order: when exactly the last ones are missing, the
        // file ended early (at an entry's boundary, so the tar itself could not tell).
        if (missing.equals(listed.subList(listed.size() - missing.size(), listed.size()))) {
            throw new RefusedException(BundleTar.TRUNCATED + ": the file ends after " + (listed.size() - missing.size())
                    + " of the " + listed.size() + " entries of its manifest, before " + missing.get(0)
                    + BundleTar.COPY_AGAIN);
        }
        throw new RefusedException(bundle + " is incomplete: " + missing.size()
                + " entries of its manifest are missing, e.g. " + missing.get(0));
    }

    private BundleContents.StagedArchive stage(BundleTar tar, CacheKey key, BundleManifest.Entry declared)
            throws IOException {
        BlobWrite write = blobs.create(key);
        MessageDigest digest = PackageHashes.sha256();
        byte[] buffer = new byte[64 * 1024];
        long size = 0;
        int n;
        // At most one byte more than the manifest declares: enough to tell the entry is larger, never enough to
        // let an oversized entry fill the disk before it is refused.
        long limit = declared.size() + 1;
        try {
            while (size < limit && (n = tar.read(buffer, 0, (int) Math.min(buffer.length, limit - size))) >= 0) {
                digest.update(buffer, 0, n);
                write.write(ByteBuffer.wrap(buffer, 0, n));
                size += n;
            }
            String sha = HexFormat.of().formatHex(digest.digest());
            check(declared, size, sha);
            return new BundleContents.StagedArchive(write, sha, size);
        } catch (IOException | RuntimeException e) {
            write.abort();
            throw e;
        }
    }

    private static void check(BundleManifest.Entry declared, long size, String sha256) throws RefusedException {
        if (size != declared.size() || !sha256.equals(declared.sha256())) {
            throw new RefusedException(
                    "the entry " + declared.path() + " was altered: it is " + size + " bytes with " + "sha256 " + sha256
                            + ", but the manifest says " + declared.size() + " bytes, " + declared.sha256());
        }
    }

    /** An entry name as a cache key: every segment validated, so no name can reach outside the cache. */
    private static CacheKey key(String name) throws RefusedException {
        try {
            CacheKey key = new CacheKey(List.of(name.split("/", -1)));
            List<String> segments = key.segments();
            boolean module = segments.get(0).equals(CacheLayout.MODULES);
            // A module's version list is one level above its versions' pins and archives.
            boolean moduleList = segments.size() == 6 && segments.get(5).equals("versions.json");
            if (module ? segments.size() != 7 && !moduleList : segments.size() != 4 && segments.size() != 5) {
                throw new IllegalArgumentException("unexpected depth");
            }
            return key;
        } catch (IllegalArgumentException e) {
            throw new RefusedException("the bundle holds an entry whose name is not a cache path: " + name);
        }
    }

    /** A module version's archive ({@code _modules/.../<version>/module.<extension>}), as opposed to its pin. */
    private static boolean isModuleArchive(CacheKey key) {
        List<String> segments = key.segments();
        return segments.get(0).equals(CacheLayout.MODULES)
                && segments.get(segments.size() - 1).startsWith("module.");
    }

    /** A document entry, read to at most one byte more than {@code declared} (or than any document may be). */
    private static byte[] bounded(BundleTar tar, TarArchiveEntry entry, long declared) throws IOException {
        if (entry.getSize() > MAX_DOCUMENT_BYTES || declared > MAX_DOCUMENT_BYTES) {
            throw new RefusedException("the entry " + entry.getName() + " is " + Math.max(entry.getSize(), declared)
                    + " bytes, more than a document of a bundle may be");
        }
        return tar.readNBytes((int) Math.max(0, declared) + 1);
    }
}
