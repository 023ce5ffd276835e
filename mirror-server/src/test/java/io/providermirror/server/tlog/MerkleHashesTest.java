package io.providermirror.server.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 6962 hashing and RFC 9162 proofs, against the Certificate Transparency reference vectors. */
final class MerkleHashesTest {

    private static final HexFormat HEX = HexFormat.of();

    /** The reference leaves of RFC 6962's test data (certificate-transparency and transparency-dev/merkle). */
    private static final List<byte[]> LEAVES = List.of(
            HEX.parseHex(""),
            HEX.parseHex("00"),
            HEX.parseHex("10"),
            HEX.parseHex("2021"),
            HEX.parseHex("3031"),
            HEX.parseHex("40414243"),
            HEX.parseHex("5051525354555657"),
            HEX.parseHex("606162636465666768696a6b6c6d6e6f"));

    /** The reference roots for tree sizes 0 to 8. */
    private static final List<String> ROOTS = List.of(
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328");

    private static List<byte[]> leafHashes(List<byte[]> entries) {
        List<byte[]> hashes = new ArrayList<>();
        entries.forEach(entry -> hashes.add(MerkleHashes.leafHash(entry)));
        return hashes;
    }

    private static List<String> hex(List<byte[]> hashes) {
        return hashes.stream().map(HEX::formatHex).toList();
    }

    @Test
    void rootsAreTheReferenceRoots() {
        List<byte[]> hashes = leafHashes(LEAVES);
        for (int size = 0; size <= 8; size++) {
            assertThat(HEX.formatHex(MerkleHashes.root(hashes, 0, size)))
                    .as("root of size %d", size)
                    .isEqualTo(ROOTS.get(size));
        }
    }

    @Test
    void inclusionProofsAreTheReferenceProofs() {
        List<byte[]> hashes = leafHashes(LEAVES);
        assertThat(hex(MerkleHashes.inclusionProof(hashes, 0, 8)))
                .containsExactly(
                        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4");
        assertThat(hex(MerkleHashes.inclusionProof(hashes, 5, 8)))
                .containsExactly(
                        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7");
    }

    @Test
    void consistencyProofsAreTheReferenceProofs() {
        List<byte[]> hashes = leafHashes(LEAVES);
        assertThat(hex(MerkleHashes.consistencyProof(hashes, 1, 8)))
                .containsExactly(
                        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4");
        assertThat(hex(MerkleHashes.consistencyProof(hashes, 6, 8)))
                .containsExactly(
                        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7");
        assertThat(hex(MerkleHashes.consistencyProof(hashes, 2, 5)))
                .containsExactly(
                        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b");
    }

    @Test
    void everyProofVerifiesAndNoTamperedOneDoes() {
        List<byte[]> hashes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            hashes.add(MerkleHashes.leafHash(new byte[] {(byte) i, (byte) (i * 7)}));
        }
        for (int size = 1; size <= hashes.size(); size++) {
            byte[] root = MerkleHashes.root(hashes, 0, size);
            for (int index = 0; index < size; index++) {
                List<byte[]> proof = MerkleHashes.inclusionProof(hashes, index, size);
                assertThat(MerkleHashes.verifyInclusion(index, size, hashes.get(index), proof, root))
                        .as("inclusion of %d in %d", index, size)
                        .isTrue();
                assertThat(MerkleHashes.verifyInclusion(index, size, hashes.get((index + 1) % 40), proof, root))
                        .isFalse();
                if (size > 1) {
                    assertThat(MerkleHashes.verifyInclusion((index + 1) % size, size, hashes.get(index), proof, root))
                            .isFalse();
                }
            }
            for (int first = 1; first <= size; first++) {
                byte[] firstRoot = MerkleHashes.root(hashes, 0, first);
                List<byte[]> proof = MerkleHashes.consistencyProof(hashes, first, size);
                assertThat(MerkleHashes.verifyConsistency(first, size, firstRoot, root, proof))
                        .as("consistency of %d with %d", first, size)
                        .isTrue();
                if (first < size) {
                    byte[] otherRoot = MerkleHashes.root(hashes, 1, first + 1);
                    assertThat(MerkleHashes.verifyConsistency(first, size, otherRoot, root, proof))
                            .isFalse();
                    List<byte[]> tampered = new ArrayList<>(proof);
                    tampered.set(0, MerkleHashes.leafHash(new byte[] {9}));
                    assertThat(MerkleHashes.verifyConsistency(first, size, firstRoot, root, tampered))
                            .isFalse();
                }
            }
        }
    }
}
