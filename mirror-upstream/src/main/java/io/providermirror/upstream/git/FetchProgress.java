package io.providermirror.upstream.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ProgressMonitor;

/**
 * Cancels a JGit fetch past its deadline or once the repository on disk outgrows its bound. JGit asks {@link
 * #isCancelled()} while it receives objects; the size is measured at most every {@link #SIZE_CHECK_INTERVAL}.
 */
final class FetchProgress implements ProgressMonitor {

    private static final Duration SIZE_CHECK_INTERVAL = Duration.ofMillis(250);

    private final Clock clock;
    private final Instant deadline;
    private final Path gitDirectory;
    private final long maxBytes;
    private Instant nextSizeCheck;
    private String exceeded;

    FetchProgress(Clock clock, Instant deadline, Path gitDirectory, long maxBytes) {
        this.clock = clock;
        this.deadline = deadline;
        this.gitDirectory = gitDirectory;
        this.maxBytes = maxBytes;
        this.nextSizeCheck = clock.instant();
    }

    @Override
    public boolean isCancelled() {
        Instant now = clock.instant();
        if (exceeded == null && now.isAfter(deadline)) {
            exceeded = "the git fetch passed its deadline";
        }
        if (exceeded == null && !now.isBefore(nextSizeCheck)) {
            nextSizeCheck = now.plus(SIZE_CHECK_INTERVAL);
            if (repositoryBytes() > maxBytes) {
                exceeded = "the git repository outgrew " + maxBytes + " bytes";
            }
        }
        return exceeded != null;
    }

    /** Throws if a bound was exceeded, so the caller reports that rather than JGit's "cancelled". */
    void throwIfExceeded() throws GitFetchException {
        if (exceeded != null) {
            throw new GitFetchException(exceeded);
        }
    }

    /** Measures the repository once more after the fetch (JGit may not have asked at the end). */
    void checkRepositorySize() throws GitFetchException {
        nextSizeCheck = Instant.MIN;
        isCancelled();
        throwIfExceeded();
    }

    private long repositoryBytes() {
        try (Stream<Path> walk = Files.walk(gitDirectory)) {
            return walk.mapToLong(FetchProgress::fileSize).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long fileSize(Path path) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            return attributes.isRegularFile() ? attributes.size() : 0;
        } catch (IOException e) {
            return 0; // a temporary file JGit renamed or removed meanwhile
        }
    }

    @Override
    public void start(int totalTasks) {}

    @Override
    public void beginTask(String title, int totalWork) {}

    @Override
    public void update(int completed) {}

    @Override
    public void endTask() {}

    @Override
    public void showDuration(boolean enabled) {}
}
