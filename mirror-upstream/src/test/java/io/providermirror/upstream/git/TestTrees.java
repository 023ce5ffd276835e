package io.providermirror.upstream.git;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;

/** Commits of trees written straight into a repository's objects: any mode, any size, without a working tree. */
final class TestTrees {

    /** A file of a tree: its mode, size and content. */
    record Blob(FileMode mode, long size, Supplier<InputStream> content) {

        static Blob text(String text) {
            return bytes(FileMode.REGULAR_FILE, text.getBytes(StandardCharsets.UTF_8));
        }

        static Blob executable(String text) {
            return bytes(FileMode.EXECUTABLE_FILE, text.getBytes(StandardCharsets.UTF_8));
        }

        static Blob symlink(String target) {
            return bytes(FileMode.SYMLINK, target.getBytes(StandardCharsets.UTF_8));
        }

        /** {@code size} zero bytes, which compress to almost nothing. */
        static Blob zeros(long size) {
            return new Blob(FileMode.REGULAR_FILE, size, () -> new InputStream() {
                private long left = size;

                @Override
                public int read() {
                    return left-- > 0 ? 0 : -1;
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    if (left <= 0) {
                        return -1;
                    }
                    int n = (int) Math.min(len, left);
                    java.util.Arrays.fill(b, off, off + n, (byte) 0);
                    left -= n;
                    return n;
                }
            });
        }

        private static Blob bytes(FileMode mode, byte[] content) {
            return new Blob(mode, content.length, () -> new ByteArrayInputStream(content));
        }
    }

    private TestTrees() {}

    /** Commits exactly {@code files} (paths with slashes; one blob given for many paths is stored once). */
    static ObjectId commit(Repository repository, Map<String, Blob> files) throws IOException {
        try (ObjectInserter inserter = repository.newObjectInserter()) {
            DirCache index = DirCache.newInCore();
            DirCacheBuilder builder = index.builder();
            java.util.IdentityHashMap<Blob, ObjectId> inserted = new java.util.IdentityHashMap<>();
            for (Map.Entry<String, Blob> file : files.entrySet()) {
                DirCacheEntry entry = new DirCacheEntry(file.getKey());
                Blob blob = file.getValue();
                entry.setFileMode(blob.mode());
                ObjectId id = inserted.get(blob);
                if (id == null) {
                    try (InputStream in = blob.content().get()) {
                        id = inserter.insert(Constants.OBJ_BLOB, blob.size(), in);
                    }
                    inserted.put(blob, id);
                }
                entry.setObjectId(id);
                builder.add(entry);
            }
            builder.finish();
            return commitTree(inserter, index.writeTree(inserter));
        }
    }

    /** Commits {@code tree} (an id already in the repository). */
    static ObjectId commitTree(ObjectInserter inserter, ObjectId tree) throws IOException {
        PersonIdent ident = new PersonIdent("author", "author@example.test", Instant.EPOCH, ZoneOffset.UTC);
        CommitBuilder commit = new CommitBuilder();
        commit.setTreeId(tree);
        commit.setAuthor(ident);
        commit.setCommitter(ident);
        commit.setMessage("tree\n");
        ObjectId id = inserter.insert(commit);
        inserter.flush();
        return id;
    }

    /** A bare repository {@code <name>.git} in a {@link io.providermirror.testkit.GitHttpServer}'s root. */
    static Repository served(Path serverRoot, String name) throws GitAPIException {
        return Git.init()
                .setBare(true)
                .setDirectory(serverRoot.resolve(name + ".git").toFile())
                .setInitialBranch("main")
                .call()
                .getRepository();
    }

    /** Points {@code ref} at {@code id} and publishes the repository's server info. */
    static void publish(Repository repository, String ref, ObjectId id) throws IOException {
        RefUpdate update = repository.updateRef(ref);
        update.setNewObjectId(id);
        update.setForceUpdate(true);
        update.update();
        io.providermirror.testkit.GitHttpServer.updateServerInfo(repository);
    }
}
