package io.providermirror.upstream.git;

/** What {@link TreeArchive#write} wrote: the sha256 (hex) and size of the {@code .tar.gz}, and its entry count. */
public record PackedTree(String sha256, long archiveBytes, int entries) {}
