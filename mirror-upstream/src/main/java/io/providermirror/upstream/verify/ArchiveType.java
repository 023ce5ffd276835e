package io.providermirror.upstream.verify;

/** The archive formats go-getter unpacks into a directory, by the extension or {@code archive=} value. */
public enum ArchiveType {
    ZIP("zip"),
    TAR_GZ("tar.gz"),
    TGZ("tgz"),
    TAR_BZ2("tar.bz2"),
    TAR_TBZ2("tar.tbz2"),
    TAR_XZ("tar.xz"),
    TXZ("txz");

    private final String extension;

    ArchiveType(String extension) {
        this.extension = extension;
    }

    /** The extension and {@code archive=} value, e.g. {@code tar.gz}. */
    public String extension() {
        return extension;
    }
}
