package io.providermirror.server.bundle;

import java.io.IOException;
import java.util.Objects;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The bundle's tar, for which a read that fails once its contents have ended means the file ended before
 * the tar did: the bundle is truncated (a partial download or copy), said in those words. Any other failed
 * read refuses the bundle too, as one that cannot be read.
 */
final class BundleTar extends TarArchiveInputStream {

    static final String TRUNCATED = "the bundle is truncated";
    static final String COPY_AGAIN = "; copy the whole file again from where it was exported";

    private final BundleFiles.StreamEnd contents;
    private String entry;

    BundleTar(BundleFiles.StreamEnd contents) {
        super(contents);
        this.contents = contents;
    }

    @Override
    public TarArchiveEntry getNextEntry() throws IOException {
        try {
            TarArchiveEntry next = super.getNextEntry();
            if (next != null) {
                entry = next.getName();
            }
            return next;
        } catch (IOException e) {
            throw truncatedOr(e, entry == null ? "before its first entry" : "after the entry " + entry);
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        try {
            return super.read(buffer, offset, length);
        } catch (IOException e) {
            throw truncatedOr(e, "inside the entry " + entry);
        }
    }

    /** A failed read of the bundle: it was cut short, or it is not a bundle; either way, refused. */
    private IOException truncatedOr(IOException e, String where) {
        if (e instanceof BundleImporter.RefusedException) {
            return e;
        }
        if (contents.ended()) {
            return new BundleImporter.RefusedException(TRUNCATED + ": the file ends " + where + COPY_AGAIN);
        }
        String why = Objects.toString(e.getMessage(), e.getClass().getSimpleName());
        return new BundleImporter.RefusedException("the file cannot be read as a bundle (a tar, or a tar compressed "
                + "with zstd), " + where + ": " + why.replaceFirst("\\.$", ""));
    }
}
