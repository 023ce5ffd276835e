package io.providermirror.server.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files only the mirror's user may read: private keys (0600) in a directory only it may enter (0700). Made so from
 * the start (never world-readable for a moment), and made so again at start-up when found looser, with a warning.
 * On a file system without POSIX permissions nothing is changed.
 */
public final class PrivateFiles {

    private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);
    static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> OWNER_DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private PrivateFiles() {}

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /** Creates {@code directory} (0700), or makes an existing one 0700. */
    public static void directory(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            FileAttribute<?>[] attributes = posix()
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_DIRECTORY)}
                    : new FileAttribute<?>[0];
            Files.createDirectories(directory, attributes);
        }
        restrict(directory, OWNER_DIRECTORY, "0700");
    }

    /** Makes an existing {@code file} 0600, warning when it was readable by others. */
    public static void restrict(Path file) throws IOException {
        restrict(file, OWNER_FILE, "0600");
    }

    private static void restrict(Path path, Set<PosixFilePermission> wanted, String mode) throws IOException {
        if (!posix() || !Files.exists(path)) {
            return;
        }
        Set<PosixFilePermission> present = Files.getPosixFilePermissions(path);
        if (present.equals(wanted)) {
            return;
        }
        Files.setPosixFilePermissions(path, wanted);
        boolean exposed = present.stream()
                .anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"));
        if (exposed) {
            LOG.warn(
                    "{} was {} (open to other users of this machine): made it {}. If anyone else may have read the "
                            + "generated CA's key, delete ca.pem in that directory and restart: the mirror makes a "
                            + "new CA, which clients must then trust",
                    path.toAbsolutePath(),
                    PosixFilePermissions.toString(present),
                    mode);
        }
    }

    /** Writes {@code text} to {@code file}, readable by the owner only from its first byte, replacing it whole. */
    public static void write(Path file, String text) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temporary);
        if (posix()) {
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(OWNER_FILE));
            Files.setPosixFilePermissions(temporary, OWNER_FILE);
        } else {
            Files.createFile(temporary);
        }
        Files.writeString(temporary, text, StandardCharsets.US_ASCII);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
