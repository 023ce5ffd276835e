package io.providermirror.server.config;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Checks every file and directory the configuration names before the mirror creates anything (a CA, a lock,
 * a directory): each file key names an existing, readable regular file, and the cache directory is a
 * directory or can be made one. Each failure names the key, the path and the operating system's reason.
 */
public final class ConfiguredFiles {

    /** The one path key that names a directory the mirror creates, rather than a file it reads. */
    private static final String CACHE_DIRECTORY = "cache.directory";

    private ConfiguredFiles() {}

    /** @throws ConfigException naming the first key whose file is missing, unreadable or not a file */
    public static void check(MirrorConfig config) throws ConfigException {
        checkRecord(config, "");
        checkCacheDirectory(config.cache().directory());
    }

    /**
     * Creates the cache directory, or says why it cannot be: {@code cache.directory: <path> cannot be created:
     * <reason>}.
     */
    public static Path createCacheDirectory(Path directory) throws ConfigException {
        checkCacheDirectory(directory);
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new ConfigException(CACHE_DIRECTORY + ": " + directory + " cannot be created: " + reason(e), e);
        }
        if (!Files.isWritable(directory)) {
            throw new ConfigException(CACHE_DIRECTORY + ": " + directory + " is not writable by this user");
        }
        return directory;
    }

    private static void checkCacheDirectory(Path directory) throws ConfigException {
        Path absolute = directory.toAbsolutePath().normalize();
        if (Files.exists(absolute) && !Files.isDirectory(absolute)) {
            throw new ConfigException(CACHE_DIRECTORY + ": " + absolute + " is a file, not a directory");
        }
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            throw new ConfigException(CACHE_DIRECTORY + ": " + absolute + " cannot be created: " + existing
                    + " is a file, not a directory");
        }
    }

    private static void checkRecord(Record value, String prefix) throws ConfigException {
        for (RecordComponent component : value.getClass().getRecordComponents()) {
            Object field = read(component, value);
            String key = prefix + component.getName();
            if (field instanceof Path path && !key.equals(CACHE_DIRECTORY)) {
                checkFile(key, path);
            } else if (field instanceof Record nested) {
                checkRecord(nested, key + ".");
            } else if (field instanceof Map<?, ?> map) {
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    if (entry.getValue() instanceof Record nested) {
                        checkRecord(nested, key + "." + entry.getKey() + ".");
                    }
                }
            }
        }
    }

    private static void checkFile(String key, Path path) throws ConfigException {
        if (!Files.exists(path)) {
            Path parent = path.toAbsolutePath().getParent();
            boolean parentHidden = parent != null && Files.isDirectory(parent) && !Files.isReadable(parent);
            throw new ConfigException(key + ": " + path
                    + (parentHidden ? " cannot be read: permission denied on " + parent : " does not exist"));
        }
        if (Files.isDirectory(path)) {
            throw new ConfigException(key + ": " + path + " is a directory, not a file");
        }
        if (!Files.isReadable(path)) {
            throw new ConfigException(key + ": " + path + " cannot be read: permission denied");
        }
    }

    private static Object read(RecordComponent component, Record value) {
        try {
            return component.getAccessor().invoke(value);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + component.getName() + " of " + value.getClass(), e);
        }
    }

    /** The operating system's reason, in words: "permission denied", "a file is in the way: /x". */
    public static String reason(IOException e) {
        if (e instanceof AccessDeniedException denied) {
            return "permission denied" + (denied.getFile() == null ? "" : " on " + denied.getFile());
        }
        if (e instanceof FileAlreadyExistsException exists) {
            return "a file is in the way: " + exists.getFile();
        }
        if (e instanceof NoSuchFileException missing) {
            return "no such directory: " + missing.getFile();
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason().toLowerCase(Locale.ROOT) + (fs.getFile() == null ? "" : " (" + fs.getFile() + ")");
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
