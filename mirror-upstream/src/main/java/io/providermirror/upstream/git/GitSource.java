package io.providermirror.upstream.git;

import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.net.ssl.X509TrustManager;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.TransportConfigCallback;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.TransportHttp;

/**
 * Fetches a module source that the CLI would get with git: one ref (a branch, a tag or a commit id) of an HTTPS
 * repository, into a new bare repository (no working tree: {@link TreeArchive} packs the tree from the objects).
 * Shallow (depth 1) where the server allows it, else in full; with the mirror's TLS trust. Every connection passes
 * {@link GitDestinations} first and goes to the address it checked ({@link GitConnections}); redirects of the first
 * request are followed, as git does by default, each through the check again; git alternates are not; the
 * optional {@link GitCredential} of the repository's host goes to the repository's authority only. Time is bounded
 * by {@code timeout} and the repository's size on disk by {@link ArchiveLimits#maxBytes()} (checked while it is
 * received and after).
 */
public final class GitSource {

    private static final Pattern COMMIT_ID = Pattern.compile("[0-9a-f]{40}");
    private static final String FETCHED = "refs/mirror/fetched";

    private final GitDestinations destinations;
    private final Supplier<? extends X509TrustManager> trust;
    private final java.net.ProxySelector proxy;
    private final Map<String, GitCredential> credentialsByHost;
    private final Duration timeout;
    private final Clock clock;
    private final long minBytesPerSecond;
    private final Duration rateWindow;

    /**
     * @param destinations the destination check of origin requests, asked before every connection
     * @param trust the mirror's trust towards origins ({@code OriginTrust::trustManager}), asked for when a
     *     connection is made, so a mirror that never fetches from git never makes it
     * @param credentialsByHost the credential for each host (lower case), if any
     * @param timeout the bound on one fetch, from the first request to the last object
     */
    public GitSource(
            GitDestinations destinations,
            Supplier<? extends X509TrustManager> trust,
            Map<String, GitCredential> credentialsByHost,
            Duration timeout,
            Clock clock) {
        this(destinations, trust, credentialsByHost, timeout, clock, null);
    }

    /**
     * As {@link #GitSource(GitDestinations, Supplier, Map, Duration, Clock)}, reaching git servers through {@code
     * proxy} (the mirror's egress proxy; null: directly, never through the JVM's default proxy). Credentials for the
     * proxy itself are not sent by this client.
     */
    public GitSource(
            GitDestinations destinations,
            Supplier<? extends X509TrustManager> trust,
            Map<String, GitCredential> credentialsByHost,
            Duration timeout,
            Clock clock,
            java.net.ProxySelector proxy) {
        this(destinations, trust, credentialsByHost, timeout, clock, proxy, 0, Duration.ofSeconds(30));
    }

    private GitSource(
            GitDestinations destinations,
            Supplier<? extends X509TrustManager> trust,
            Map<String, GitCredential> credentialsByHost,
            Duration timeout,
            Clock clock,
            java.net.ProxySelector proxy,
            long minBytesPerSecond,
            Duration rateWindow) {
        this.minBytesPerSecond = minBytesPerSecond;
        this.rateWindow = rateWindow;
        this.destinations = destinations;
        this.proxy = proxy;
        this.trust = trust;
        this.credentialsByHost = Map.copyOf(credentialsByHost);
        this.timeout = timeout;
        this.clock = clock;
    }

    /**
     * This source, abandoning a fetch whose bytes arrive slower than {@code minBytesPerSecond} averaged over each
     * {@code window} ({@code upstream.minTransferRate} over {@code upstream.readTimeout}), as archive fills are.
     */
    public GitSource withMinimumRate(long minBytesPerSecond, Duration window) {
        return new GitSource(destinations, trust, credentialsByHost, timeout, clock, proxy, minBytesPerSecond, window);
    }

    /**
     * Fetches {@code ref} of {@code repository} (an {@code https://} URL) on behalf of {@code origin} (the module's
     * registry host, whose configured authorities the fetch may use) into a new bare repository under {@code
     * workDirectory}. A tag is peeled to its commit; a branch name wins over a tag of the same name, as with {@code
     * git clone --branch}. The caller closes the result to delete the repository.
     *
     * @throws GitFetchException when the URL, the ref or the server fails, or a bound is exceeded
     * @throws io.providermirror.upstream.OriginException when a connection's destination is refused
     */
    public FetchedSource fetch(String origin, URI repository, String ref, Path workDirectory, ArchiveLimits limits)
            throws GitFetchException {
        if (!"https".equals(repository.getScheme()) || repository.getHost() == null) {
            throw new GitFetchException("a git module source must be an https:// URL: " + repository);
        }
        Instant deadline = clock.instant().plus(timeout);
        Path directory;
        try {
            directory = Files.createTempDirectory(workDirectory, "git-");
        } catch (IOException e) {
            throw new GitFetchException("cannot make a directory for the fetch: " + e.getMessage(), e);
        }
        PacedInputStream.Pace pace =
                new PacedInputStream.Pace(minBytesPerSecond, rateWindow, System.nanoTime() + timeout.toNanos());
        GitConnections connections = new GitConnections(
                origin,
                repository,
                destinations,
                trust,
                proxy,
                credentialsByHost.get(repository.getHost().toLowerCase(Locale.ROOT)),
                pace);
        try (Git git = Git.init().setBare(true).setDirectory(directory.toFile()).call()) {
            StoredConfig config = git.getRepository().getConfig();
            // git's default: redirects of the first request only, each made through the factory and so checked
            config.setString("http", null, "followRedirects", "initial");
            // No auto-gc after a fetch: JGit runs it detached, racing the next fetch and the directory's deletion
            // (a NoSuchFileException on gc.log.lock), and a throw-away repository has nothing to collect.
            config.setInt("gc", null, "auto", 0);
            config.setBoolean("gc", null, "autoDetach", false);
            config.save();
            String url = repository.toString();
            TransportConfigCallback transport = transport(connections);
            String wanted = wantedRef(git, url, ref, transport, deadline);
            FetchProgress progress = new FetchProgress(clock, deadline, directory, limits.maxBytes());
            fetchRef(git, url, wanted, transport, deadline, progress);
            progress.checkRepositorySize();
            ObjectId commit = git.getRepository().resolve(FETCHED + "^{commit}");
            if (commit == null) {
                throw new GitFetchException(repository + " has no commit at " + ref);
            }
            return new FetchedSource(commit.name(), directory);
        } catch (GitAPIException | IOException | GitFetchException | RuntimeException e) {
            FetchedSource.deleteTree(directory);
            connections.throwIfRefused();
            pace.throwIfAbandoned();
            if (e instanceof GitFetchException fetchException) {
                throw fetchException;
            }
            throw new GitFetchException("cannot fetch " + ref + " of " + repository + ": " + e.getMessage(), e);
        }
    }

    /** The full name of the ref to fetch, or the commit id itself. */
    private String wantedRef(Git git, String url, String ref, TransportConfigCallback transport, Instant deadline)
            throws GitAPIException, GitFetchException {
        if (COMMIT_ID.matcher(ref).matches()) {
            return ref;
        }
        // through the local repository: JGit's dumb HTTP client needs one even to list refs
        Map<String, Ref> advertised = git.lsRemote()
                .setRemote(url)
                .setTransportConfigCallback(transport)
                .setTimeout(secondsLeft(deadline))
                .callAsMap();
        List<String> candidates =
                ref.startsWith("refs/") ? List.of(ref) : List.of("refs/heads/" + ref, "refs/tags/" + ref);
        for (String candidate : candidates) {
            if (advertised.containsKey(candidate)) {
                return candidate;
            }
        }
        throw new GitFetchException(url + " has no branch or tag " + ref);
    }

    private void fetchRef(
            Git git,
            String url,
            String wanted,
            TransportConfigCallback transport,
            Instant deadline,
            FetchProgress progress)
            throws GitAPIException, GitFetchException {
        boolean commitId = COMMIT_ID.matcher(wanted).matches();
        RefSpec spec = new RefSpec("+" + wanted + ":" + FETCHED);
        try {
            git.fetch()
                    .setRemote(url)
                    .setRefSpecs(spec)
                    .setDepth(1)
                    .setTransportConfigCallback(transport)
                    .setTimeout(secondsLeft(deadline))
                    .setProgressMonitor(progress)
                    .call();
        } catch (GitAPIException | RuntimeException shallowRefused) {
            progress.throwIfExceeded();
            // the server refused a shallow fetch (dumb HTTP, or a commit id it does not serve): fetch in full below
        }
        try {
            Repository local = git.getRepository();
            if (!commitId && local.resolve(FETCHED) != null) {
                return;
            }
            ObjectId wantedId = commitId ? ObjectId.fromString(wanted) : null;
            if (wantedId == null || !local.getObjectDatabase().has(wantedId)) {
                git.fetch()
                        .setRemote(url)
                        .setRefSpecs(commitId ? new RefSpec("+refs/*:refs/mirror/all/*") : spec)
                        .setTransportConfigCallback(transport)
                        .setTimeout(secondsLeft(deadline))
                        .setProgressMonitor(progress)
                        .call();
            }
            if (wantedId != null) {
                if (!local.getObjectDatabase().has(wantedId)) {
                    throw new GitFetchException(url + " does not serve the commit " + wanted);
                }
                RefUpdate update = local.updateRef(FETCHED);
                update.setNewObjectId(wantedId);
                update.forceUpdate();
            }
        } catch (IOException e) {
            throw new GitFetchException("cannot fetch " + wanted + " of " + url + ": " + e.getMessage(), e);
        }
    }

    private int secondsLeft(Instant deadline) throws GitFetchException {
        long left = Duration.between(clock.instant(), deadline).toSeconds();
        if (left < 1) {
            throw new GitFetchException("the git fetch took longer than " + timeout);
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    private static TransportConfigCallback transport(GitConnections connections) {
        return transport -> {
            if (transport instanceof TransportHttp http) {
                http.setHttpConnectionFactory(connections);
            } else {
                throw new IllegalStateException("git module sources are fetched over HTTPS only");
            }
        };
    }
}
