package io.providermirror.upstream.git;

import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.eclipse.jgit.attributes.Attributes;
import org.eclipse.jgit.attributes.AttributesNode;
import org.eclipse.jgit.attributes.AttributesNodeProvider;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.CoreConfig.EolStreamType;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.TreeWalk.OperationType;
import org.eclipse.jgit.treewalk.WorkingTreeOptions;
import org.eclipse.jgit.util.io.EolStreamTypeUtil;

/**
 * The entries of a commit's tree as a checkout would make them, read from the object database and counted as the
 * tree is walked: the walk stops at the first entry over {@link ArchiveLimits#maxEntries()} or the first file that
 * takes the contents over {@link ArchiveLimits#maxBytes()} (sizes read from object headers, and for a file that a
 * checkout converts, such as {@code eol=crlf} in {@code .gitattributes}, counted through the conversion), before
 * anything is written. Names a checkout refuses ({@code .git}, {@code ..}) and symlinks that leave the tree are
 * refused; a submodule is an empty directory, as a checkout leaves it.
 */
final class TreeEntries {

    /** One entry; {@code name} without a trailing slash, {@code blob} null for a directory. */
    record Entry(String name, Kind kind, ObjectId blob, long size, EolStreamType eol, String linkTarget) {}

    /** What an entry is in the archive. */
    enum Kind {
        FILE,
        EXECUTABLE,
        DIRECTORY,
        SYMLINK
    }

    /** The longest symlink target read: a path, not content. */
    private static final int MAX_LINK_TARGET = 4096;

    /**
     * Attributes from the tree's own {@code .gitattributes} only: not the mirror's {@code info/attributes} nor its
     * user's {@code core.attributesFile}, so the archive depends on the tree alone.
     */
    private static final AttributesNodeProvider TREE_ONLY = new AttributesNodeProvider() {
        @Override
        public AttributesNode getInfoAttributesNode() {
            return new AttributesNode();
        }

        @Override
        public AttributesNode getGlobalAttributesNode() {
            return new AttributesNode();
        }
    };

    /** git's defaults, not the mirror user's {@code core.autocrlf} or {@code core.eol}. */
    private static final WorkingTreeOptions DEFAULT_OPTIONS = new Config().get(WorkingTreeOptions.KEY);

    private TreeEntries() {}

    /** The entries of {@code commit}'s tree, sorted by name as the archive holds them. */
    static List<Entry> of(ObjectReader reader, AnyObjectId commit, ArchiveLimits limits) throws IOException {
        List<Entry> entries = new ArrayList<>();
        ObjectChecker names = new ObjectChecker();
        long bytes = 0;
        try (RevWalk commits = new RevWalk(reader);
                TreeWalk walk = new TreeWalk(reader)) {
            walk.setAttributesNodeProvider(TREE_ONLY);
            walk.addTree(commits.parseCommit(commit).getTree());
            walk.setRecursive(false);
            walk.setOperationType(OperationType.CHECKOUT_OP);
            while (walk.next()) {
                String name = walk.getPathString();
                checkName(names, walk, name);
                if (entries.size() == limits.maxEntries()) {
                    throw new TreeArchive.Refused("the tree holds more than " + limits.maxEntries() + " entries");
                }
                FileMode mode = walk.getFileMode(0);
                if (walk.isSubtree()) {
                    entries.add(directory(name));
                    walk.enterSubtree();
                } else if (mode == FileMode.GITLINK) {
                    entries.add(directory(name));
                } else if (mode == FileMode.SYMLINK) {
                    entries.add(symlink(reader, walk.getObjectId(0), name));
                } else if (mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE) {
                    Entry file = file(reader, walk, name, mode, limits.maxBytes() - bytes);
                    bytes += file.size();
                    entries.add(file);
                } else {
                    throw new TreeArchive.Refused(name + " is neither a file, a directory nor a symlink");
                }
            }
        }
        entries.sort(Comparator.comparing(Entry::name));
        return entries;
    }

    private static void checkName(ObjectChecker names, TreeWalk walk, String name) throws IOException {
        // the entry's own name, which a hostile tree object may have given a slash
        byte[] raw = walk.getNameString().getBytes(StandardCharsets.UTF_8);
        try {
            names.checkPathSegment(raw, 0, raw.length);
        } catch (CorruptObjectException e) {
            throw new TreeArchive.Refused(
                    "the tree holds a name a checkout refuses: " + name + " (" + e.getMessage() + ")");
        }
    }

    private static Entry directory(String name) {
        return new Entry(name, Kind.DIRECTORY, null, 0, EolStreamType.DIRECT, null);
    }

    private static Entry symlink(ObjectReader reader, ObjectId blob, String name) throws IOException {
        String target = new String(
                reader.open(blob, Constants.OBJ_BLOB).getCachedBytes(MAX_LINK_TARGET), StandardCharsets.UTF_8);
        Path parent = Path.of(name).getParent();
        Path resolved;
        try {
            resolved = (parent == null ? Path.of("") : parent).resolve(target).normalize();
        } catch (InvalidPathException e) {
            throw new TreeArchive.Refused("the symlink " + name + " has an invalid target");
        }
        if (target.isEmpty()
                || target.startsWith("/")
                || resolved.startsWith("..")
                || (resolved.getNameCount() > 0
                        && resolved.getName(0).toString().equals(".git"))) {
            throw new TreeArchive.Refused("the symlink " + name + " points outside the tree: " + target);
        }
        return new Entry(name, Kind.SYMLINK, blob, 0, EolStreamType.DIRECT, target);
    }

    private static Entry file(ObjectReader reader, TreeWalk walk, String name, FileMode mode, long bytesLeft)
            throws IOException {
        ObjectId blob = walk.getObjectId(0);
        long size = reader.getObjectSize(blob, Constants.OBJ_BLOB);
        if (size > bytesLeft) {
            throw tooLarge(name);
        }
        EolStreamType eol = eol(walk);
        if (eol != EolStreamType.DIRECT) {
            // the checkout's size is known only by converting: counted, stopping once it is over the limit
            Counter converted = new Counter(bytesLeft, name);
            try (OutputStream out = EolStreamTypeUtil.wrapOutputStream(converted, eol)) {
                reader.open(blob, Constants.OBJ_BLOB).copyTo(out);
            }
            size = converted.count;
        }
        Kind kind = mode == FileMode.EXECUTABLE_FILE ? Kind.EXECUTABLE : Kind.FILE;
        return new Entry(name, kind, blob, size, eol, null);
    }

    private static EolStreamType eol(TreeWalk walk) {
        Attributes attributes = walk.getAttributes();
        return attributes.isEmpty()
                ? EolStreamType.DIRECT
                : EolStreamTypeUtil.detectStreamType(OperationType.CHECKOUT_OP, DEFAULT_OPTIONS, attributes);
    }

    private static TreeArchive.Refused tooLarge(String name) {
        return new TreeArchive.Refused("the tree's files exceed the limit on total bytes at " + name);
    }

    /** Counts bytes written to nowhere, refusing past a bound. */
    private static final class Counter extends OutputStream {
        private final long bound;
        private final String name;
        private long count;

        Counter(long bound, String name) {
            this.bound = bound;
            this.name = name;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count += len;
            if (count > bound) {
                throw tooLarge(name);
            }
        }
    }
}
