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

    /** The path keys that name a directory the mirror creates, rather than a file it reads. */
    private static final String CACHE_DIRECTORY = "cache.directory";

    private static final String TLS_DIRECTORY = "server.generatedTls.directory";

    private ConfiguredFiles() {}

    /** @throws ConfigException naming the first key whose file is missing, unreadable or not a file */
    public static void check(MirrorConfig config) throws ConfigException {
        checkRecord(config, "");
        checkDirectory(CACHE_DIRECTORY, config.cache().directory());
        Path tls = config.server().generatedTls().directoryBeside(config.cache().directory());
        checkDirectory(TLS_DIRECTORY, tls);
        if (within(tls, config.cache().directory())) {
            throw new ConfigException(
                    TLS_DIRECTORY + ": " + tls.toAbsolutePath().normalize() + " is inside "
                            + CACHE_DIRECTORY + " "
                            + config.cache().directory().toAbsolutePath().normalize()
                            + " (expected: a directory outside it, so no copy of the cache carries the generated CA's key)");
        }
    }

    /** True when {@code path} is {@code directory} or beneath it, links resolved as far as they exist. */
    private static boolean within(Path path, Path directory) {
        return real(path).startsWith(real(directory));
    }

    private static Path real(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(absolute));
        } catch (IOException e) {
            return absolute;
        }
    }

    /**
     * Creates the cache directory, or says why it cannot be: {@code cache.directory: <path> cannot be created:
     * <reason>}.
     */
    public static Path createCacheDirectory(Path directory) throws ConfigException {
        checkDirectory(CACHE_DIRECTORY, directory);
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

    private static void checkDirectory(String key, Path directory) throws ConfigException {
        Path absolute = directory.toAbsolutePath().normalize();
        if (Files.exists(absolute) && !Files.isDirectory(absolute)) {
            throw new ConfigException(key + ": " + absolute + " is a file, not a directory");
        }
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            throw new ConfigException(
                    key + ": " + absolute + " cannot be created: " + existing + " is a file, not a directory");
        }
    }

    private static void checkRecord(Record value, String prefix) throws ConfigException {
        for (RecordComponent component : value.getClass().getRecordComponents()) {
            Object field = read(component, value);
            String key = prefix + component.getName();
            if (field instanceof Path path && !key.equals(CACHE_DIRECTORY) && !key.equals(TLS_DIRECTORY)) {
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
