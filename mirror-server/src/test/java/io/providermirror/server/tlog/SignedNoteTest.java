package io.providermirror.server.tlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/**
 * Signed notes and checkpoints against an independent implementation: the keys, text and signature are those of
 * the tests of Go's golang.org/x/mod/sumdb/note, which signed-note describes.
 */
final class SignedNoteTest {

    private static final String GO_SIGNER =
            "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
    private static final String GO_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    private static final String TEXT =
            "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
    private static final String GO_NOTE = TEXT + "\n— PeterNeumann "
            + "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    private static final String ENOCH_LINE = "— EnochRoot "
            + "rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

    @Test
    void signsAsGoDoes() {
        LogKey key = LogKey.parse(GO_SIGNER);
        assertThat(key.verifierKey()).isEqualTo(GO_VERIFIER);
        assertThat(key.signerKey()).isEqualTo(GO_SIGNER);
        assertThat(new String(SignedNote.sign(TEXT, key), StandardCharsets.UTF_8))
                .isEqualTo(GO_NOTE);
    }

    @Test
    void opensGoNotesAndIgnoresOtherKeys() throws Exception {
        NoteVerifier verifier = NoteVerifier.parse(GO_VERIFIER);
        assertThat(verifier.keyId()).isEqualTo(0xc74f20a3);
        assertThat(SignedNote.open((GO_NOTE + ENOCH_LINE).getBytes(StandardCharsets.UTF_8), verifier))
                .isEqualTo(TEXT);
    }

    @Test
    void refusesChangedTextsSignaturesAndKeys() {
        NoteVerifier verifier = NoteVerifier.parse(GO_VERIFIER);
        String changedText = GO_NOTE.replace("answer", "Answer");
        assertThatThrownBy(() -> SignedNote.open(changedText.getBytes(StandardCharsets.UTF_8), verifier))
                .hasMessageContaining("does not verify");
        String onlyEnoch = TEXT + "\n" + ENOCH_LINE;
        assertThatThrownBy(() -> SignedNote.open(onlyEnoch.getBytes(StandardCharsets.UTF_8), verifier))
                .hasMessageContaining("no signature by PeterNeumann+c74f20a3");
        assertThatThrownBy(() -> NoteVerifier.parse(GO_VERIFIER.replace("c74f20a3", "c74f20a4")))
                .hasMessageContaining("key ID does not match");
        assertThatThrownBy(() -> LogKey.parse(GO_SIGNER.replace("c74f20a3", "c74f20a4")))
                .hasMessageContaining("does not match its key");
    }

    @Test
    void checkpointsFollowTheirFormat() throws Exception {
        LogKey key = LogKey.generate("mirror.example/log/0001", new SecureRandom());
        Checkpoint checkpoint = new Checkpoint(key.name(), 20852163, MerkleHashes.leafHash(new byte[0]));
        String note = new String(SignedNote.sign(checkpoint.text(), key), StandardCharsets.UTF_8);
        assertThat(note)
                .matches("mirror\\.example/log/0001\n20852163\n[A-Za-z0-9+/]{43}=\n\n— mirror\\.example/log/0001 "
                        + "[A-Za-z0-9+/]{91}=\n");
        Checkpoint opened = Checkpoint.open(note.getBytes(StandardCharsets.UTF_8), key.verifier());
        assertThat(opened.size()).isEqualTo(20852163);
        assertThat(opened.rootHash()).isEqualTo(checkpoint.rootHash());
        LogKey other = LogKey.generate("other.example/log", new SecureRandom());
        assertThatThrownBy(() -> Checkpoint.open(note.getBytes(StandardCharsets.UTF_8), other.verifier()))
                .isInstanceOf(SignedNote.InvalidNoteException.class);
    }
}
