package io.providermirror.server.tlog;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RFC 6962 Merkle tree hashing with SHA-256 (leaves hashed with a {@code 0x00} prefix, interior nodes with
 * {@code 0x01}, a tree of n leaves split at the largest power of two below n), and the inclusion and consistency
 * proofs of RFC 9162 section 2.1.3 and 2.1.4: how they are made from a tree's leaf hashes and how a client that
 * holds only a root checks them.
 */
public final class MerkleHashes {

    /** The size of every hash in the tree. */
    public static final int HASH_SIZE = 32;

    private MerkleHashes() {}

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The hash of a tree without leaves: SHA-256 of nothing. */
    public static byte[] emptyRoot() {
        return sha256().digest();
    }

    /** The leaf hash of {@code entry}: SHA-256(0x00 || entry). */
    public static byte[] leafHash(byte[] entry) {
        MessageDigest digest = sha256();
        digest.update((byte) 0);
        digest.update(entry);
        return digest.digest();
    }

    /** The hash of an interior node: SHA-256(0x01 || left || right). */
    public static byte[] nodeHash(byte[] left, byte[] right) {
        MessageDigest digest = sha256();
        digest.update((byte) 1);
        digest.update(left);
        digest.update(right);
        return digest.digest();
    }

    /** The root of the tree of all {@code leafHashes}. */
    public static byte[] root(List<byte[]> leafHashes) {
        return root(leafHashes, 0, leafHashes.size());
    }

    /** MTH(D[from:to]): the root of the tree whose leaf hashes are {@code leafHashes[from:to]}. */
    public static byte[] root(List<byte[]> leafHashes, int from, int to) {
        int n = to - from;
        if (n == 0) {
            return emptyRoot();
        }
        if (n == 1) {
            return leafHashes.get(from).clone();
        }
        int k = splitPoint(n);
        return nodeHash(root(leafHashes, from, from + k), root(leafHashes, from + k, to));
    }

    /** The largest power of two smaller than {@code n} (n at least 2). */
    static int splitPoint(long n) {
        return (int) Long.highestOneBit(n - 1);
    }

    /** PATH(m, D[0:size]): the hashes that lead from leaf {@code index} to the root of the first {@code size}. */
    public static List<byte[]> inclusionProof(List<byte[]> leafHashes, int index, int size) {
        if (index < 0 || index >= size || size > leafHashes.size()) {
            throw new IllegalArgumentException(
                    "index: " + index + ", size: " + size + " (expected: index < size <= " + leafHashes.size() + ")");
        }
        List<byte[]> proof = new ArrayList<>();
        path(leafHashes, index, 0, size, proof);
        return proof;
    }

    private static void path(List<byte[]> leaves, int index, int from, int to, List<byte[]> proof) {
        int n = to - from;
        if (n == 1) {
            return;
        }
        int k = splitPoint(n);
        if (index < k) {
            path(leaves, index, from, from + k, proof);
            proof.add(root(leaves, from + k, to));
        } else {
            path(leaves, index - k, from + k, to, proof);
            proof.add(root(leaves, from, from + k));
        }
    }

    /** PROOF(first, D[0:second]): what shows that the tree of {@code first} leaves is a prefix of that of {@code second}. */
    public static List<byte[]> consistencyProof(List<byte[]> leafHashes, int first, int second) {
        if (first < 1 || first > second || second > leafHashes.size()) {
            throw new IllegalArgumentException("first: " + first + ", second: " + second
                    + " (expected: 0 < first <= second <= " + leafHashes.size() + ")");
        }
        List<byte[]> proof = new ArrayList<>();
        subproof(leafHashes, first, 0, second, true, proof);
        return proof;
    }

    private static void subproof(List<byte[]> leaves, int m, int from, int to, boolean whole, List<byte[]> proof) {
        int n = to - from;
        if (m == n) {
            if (!whole) {
                proof.add(root(leaves, from, to));
            }
            return;
        }
        int k = splitPoint(n);
        if (m <= k) {
            subproof(leaves, m, from, from + k, whole, proof);
            proof.add(root(leaves, from + k, to));
        } else {
            subproof(leaves, m - k, from + k, to, false, proof);
            proof.add(root(leaves, from, from + k));
        }
    }

    /** RFC 9162 2.1.3.2: whether {@code proof} shows leaf {@code leafHash} at {@code index} in the tree of {@code root}. */
    public static boolean verifyInclusion(long index, long size, byte[] leafHash, List<byte[]> proof, byte[] root) {
        if (index < 0 || index >= size) {
            return false;
        }
        long fn = index;
        long sn = size - 1;
        byte[] r = leafHash;
        for (byte[] p : proof) {
            if (sn == 0) {
                return false;
            }
            if ((fn & 1) == 1 || fn == sn) {
                r = nodeHash(p, r);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>= 1;
                    sn >>= 1;
                }
            } else {
                r = nodeHash(r, p);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return sn == 0 && MessageDigest.isEqual(r, root);
    }

    /**
     * RFC 9162 2.1.4.2: whether {@code proof} shows that the tree of {@code first} leaves with root {@code firstRoot}
     * is a prefix of the tree of {@code second} leaves with root {@code secondRoot}.
     */
    public static boolean verifyConsistency(
            long first, long second, byte[] firstRoot, byte[] secondRoot, List<byte[]> proof) {
        if (first < 0 || first > second) {
            return false;
        }
        if (first == second) {
            return proof.isEmpty() && MessageDigest.isEqual(firstRoot, secondRoot);
        }
        if (first == 0) {
            return proof.isEmpty(); // the empty tree is a prefix of every tree
        }
        if (proof.isEmpty()) {
            return false;
        }
        List<byte[]> path = new ArrayList<>(proof);
        if (Long.bitCount(first) == 1) {
            path.add(0, firstRoot);
        }
        long fn = first - 1;
        long sn = second - 1;
        while ((fn & 1) == 1) {
            fn >>= 1;
            sn >>= 1;
        }
        byte[] fr = path.get(0);
        byte[] sr = path.get(0);
        for (byte[] c : path.subList(1, path.size())) {
            if (sn == 0) {
                return false;
            }
            if ((fn & 1) == 1 || fn == sn) {
                fr = nodeHash(c, fr);
                sr = nodeHash(c, sr);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>= 1;
                    sn >>= 1;
                }
            } else {
                sr = nodeHash(sr, c);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return sn == 0 && MessageDigest.isEqual(fr, firstRoot) && MessageDigest.isEqual(sr, secondRoot);
    }

    /** Whether two hashes are equal, in constant time. */
    static boolean same(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    static byte[] copy(byte[] bytes, int from) {
        return Arrays.copyOfRange(bytes, from, from + HASH_SIZE);
    }
}
