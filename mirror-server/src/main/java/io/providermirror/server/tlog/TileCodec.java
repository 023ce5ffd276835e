package io.providermirror.server.tlog;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of tiles: a hash tile is its hashes one after the other; an entry bundle is its entries, each after its
 * length as a big-endian uint16.
 */
final class TileCodec {

    /** The largest entry a bundle can hold. */
    static final int MAX_ENTRY = 0xffff;

    private TileCodec() {}

    static byte[] hashes(List<byte[]> hashes) {
        byte[] tile = new byte[hashes.size() * MerkleHashes.HASH_SIZE];
        for (int i = 0; i < hashes.size(); i++) {
            System.arraycopy(hashes.get(i), 0, tile, i * MerkleHashes.HASH_SIZE, MerkleHashes.HASH_SIZE);
        }
        return tile;
    }

    static List<byte[]> hashes(byte[] tile, int width) {
        if (tile.length != width * MerkleHashes.HASH_SIZE) {
            throw new IllegalArgumentException("a hash tile of width " + width + " has " + tile.length
                    + " bytes (expected: " + width * MerkleHashes.HASH_SIZE + ")");
        }
        List<byte[]> hashes = new ArrayList<>(width);
        for (int i = 0; i < width; i++) {
            hashes.add(MerkleHashes.copy(tile, i * MerkleHashes.HASH_SIZE));
        }
        return hashes;
    }

    static byte[] bundle(List<byte[]> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] entry : entries) {
            if (entry.length > MAX_ENTRY) {
                throw new IllegalArgumentException(
                        "a log entry of " + entry.length + " bytes (expected: at most 65535)");
            }
            out.write(entry.length >> 8);
            out.write(entry.length & 0xff);
            out.writeBytes(entry);
        }
        return out.toByteArray();
    }

    static List<byte[]> entries(byte[] bundle, int width) {
        List<byte[]> entries = new ArrayList<>(width);
        int at = 0;
        while (at < bundle.length) {
            if (at + 2 > bundle.length) {
                throw new IllegalArgumentException("an entry bundle ends inside a length prefix");
            }
            int length = (bundle[at] & 0xff) << 8 | bundle[at + 1] & 0xff;
            at += 2;
            if (at + length > bundle.length) {
                throw new IllegalArgumentException("an entry bundle ends inside an entry");
            }
            entries.add(java.util.Arrays.copyOfRange(bundle, at, at + length));
            at += length;
        }
        if (entries.size() != width) {
            throw new IllegalArgumentException(
                    "an entry bundle of width " + width + " holds " + entries.size() + " entries");
        }
        return entries;
    }
}
