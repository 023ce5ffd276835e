package io.providermirror.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * A repository served by a {@link GitHttpServer}: commits of whole trees given as files, lightweight and annotated
 * tags, and a tag moved to another commit (force-pushed), each published at once (server info updated).
 */
public final class GitRepository {

    private final Path bare;
    private final Path work;
    private final URI url;

    private GitRepository(Path bare, Path work, URI url) {
        this.bare = bare;
        this.work = work;
        this.url = url;
    }

    static GitRepository create(Path bare, Path work, URI url) {
        try {
            Git.init()
                    .setBare(true)
                    .setDirectory(bare.toFile())
                    .setInitialBranch("main")
                    .call()
                    .close();
            Git.init()
                    .setDirectory(work.toFile())
                    .setInitialBranch("main")
                    .call()
                    .close();
            return new GitRepository(bare, work, url);
        } catch (GitAPIException e) {
            throw new IllegalStateException("cannot create the repository " + bare, e);
        }
    }

    /** Where clients fetch it, e.g. for {@code git::<url>?ref=v1.0.0}. */
    public URI url() {
        return url;
    }

    /**
     * Commits exactly {@code files} (relative path, subdirectories included, to text content) on {@code main},
     * replacing the previous tree, and publishes it; returns the commit id.
     */
    public String commit(Map<String, String> files, String message) {
        try (Git git = Git.open(work.toFile())) {
            clearWorkTree();
            for (Map.Entry<String, String> file : files.entrySet()) {
                Path target = work.resolve(file.getKey());
                Files.createDirectories(target.getParent());
                Files.writeString(target, file.getValue(), StandardCharsets.UTF_8);
            }
            git.add().addFilepattern(".").call();
            git.add().setUpdate(true).addFilepattern(".").call();
            String id = git.commit()
                    .setMessage(message)
                    .setAuthor("author", "author@example.test")
                    .setCommitter("author", "author@example.test")
                    .setSign(false)
                    .setAllowEmpty(true)
                    .call()
                    .name();
            publish(git);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GitAPIException e) {
            throw new IllegalStateException("cannot commit to " + work, e);
        }
    }

    /** Tags {@code commitId} as {@code tag}, annotated or lightweight, and publishes it. */
    public void tag(String tag, String commitId, boolean annotated) {
        try (Git git = Git.open(work.toFile());
                RevWalk walk = new RevWalk(git.getRepository())) {
            var command = git.tag()
                    .setName(tag)
                    .setObjectId(walk.parseCommit(ObjectId.fromString(commitId)))
                    .setAnnotated(annotated)
                    .setSigned(false);
            if (annotated) {
                command.setMessage(tag).setTagger(new PersonIdent("author", "author@example.test"));
            }
            command.call();
            publish(git);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GitAPIException e) {
            throw new IllegalStateException("cannot tag " + commitId + " as " + tag, e);
        }
    }

    /** Points the existing lightweight or annotated {@code tag} at {@code commitId} (lightweight now), force-published. */
    public void moveTag(String tag, String commitId) {
        try (Git git = Git.open(work.toFile())) {
            if (git.getRepository().exactRef("refs/tags/" + tag) == null) {
                throw new IllegalArgumentException("no tag " + tag + " to move");
            }
            RefUpdate move = git.getRepository().updateRef("refs/tags/" + tag);
            move.setNewObjectId(ObjectId.fromString(commitId));
            move.setForceUpdate(true);
            RefUpdate.Result result = move.update();
            if (result != RefUpdate.Result.FORCED && result != RefUpdate.Result.NO_CHANGE) {
                throw new IllegalStateException("cannot move " + tag + ": " + result);
            }
            publish(git);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The commit a ref ({@code refs/tags/v1}, {@code main}, ...) names on the server now, or null. */
    public String resolve(String ref) {
        try (Git git = Git.open(bare.toFile())) {
            ObjectId id = git.getRepository().resolve(ref + "^{commit}");
            return id == null ? null : id.name();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void publish(Git git) throws IOException {
        try {
            git.push()
                    .setRemote(bare.toUri().toString())
                    .setRefSpecs(
                            new org.eclipse.jgit.transport.RefSpec("+refs/heads/*:refs/heads/*"),
                            new org.eclipse.jgit.transport.RefSpec("+refs/tags/*:refs/tags/*"))
                    .call();
        } catch (GitAPIException e) {
            throw new IllegalStateException("cannot push to " + bare, e);
        }
        try (Git served = Git.open(bare.toFile())) {
            GitHttpServer.updateServerInfo(served.getRepository());
        }
    }

    private void clearWorkTree() throws IOException {
        try (Stream<Path> files = Files.walk(work)) {
            files.filter(path -> !path.equals(work))
                    .filter(path -> !work.relativize(path).startsWith(".git"))
                    .sorted(Comparator.reverseOrder())
                    .forEach(path -> {
                        try {
                            Files.delete(path);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
    }
}
