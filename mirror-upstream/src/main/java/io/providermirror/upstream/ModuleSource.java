package io.providermirror.upstream;

import io.providermirror.model.Urls;
import io.providermirror.upstream.verify.ArchiveType;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A module's source address as a registry hands it out ({@code X-Terraform-Get} or {@code {"location": ...}}),
 * read the way the CLI's go-getter reads it, and what the mirror can do with it. Only two kinds can be mirrored:
 * an https archive (by {@code ?archive=} or by its extension) and a git repository over https. Everything else
 * the CLI may accept (ssh git, {@code s3::}, {@code gcs::}, {@code hg::}, file paths, plain http, single-file
 * {@code .gz}) is {@link Kind#UNSUPPORTED} with a reason. Malformed or hostile text is an
 * {@link IllegalArgumentException}. {@link #toString()} never shows credentials or query values.
 *
 * @param url          what to fetch: for archives without {@code archive=}, for git without {@code ref=}; no
 *                     subdirectory. Null for {@code UNSUPPORTED}, except for
 *                     plain http, where it is the URL (with its query).
 * @param subdirectory the module's directory inside the package (the part after {@code //}), or empty
 * @param gitRef       for {@code GIT}, the {@code ref=} value, or empty for the default branch
 * @param archiveType  for {@code ARCHIVE}, the archive format; else null
 * @param reason       for {@code UNSUPPORTED}, why the mirror cannot mirror it; else empty
 */
public record ModuleSource(
        Kind kind, URI url, String subdirectory, String gitRef, ArchiveType archiveType, String reason) {

    /** What the mirror can make of a source. */
    public enum Kind {
        ARCHIVE,
        GIT,
        UNSUPPORTED
    }

    private static final int MAX_LENGTH = 4096;
    private static final Pattern FORCED = Pattern.compile("([A-Za-z0-9]+)::(.+)", Pattern.DOTALL);
    /** Compressed single files go-getter knows: they unpack to one file, never to a module directory. */
    private static final List<String> SINGLE_FILE = List.of("gz", "bz2", "xz", "zst");

    public ModuleSource {
        subdirectory = subdirectory == null ? "" : subdirectory;
        gitRef = gitRef == null ? "" : gitRef;
        reason = reason == null ? "" : reason;
    }

    private static ModuleSource unsupported(String reason) {
        return new ModuleSource(Kind.UNSUPPORTED, null, "", "", null, reason);
    }

    /**
     * The source a registry returned, resolved against the URL it was asked at when it is relative: as the
     * CLI does, only values starting with {@code /}, {@code ./} or {@code ../} are relative.
     */
    public static ModuleSource fromRegistry(String location, URI downloadUrl) {
        checkText(location);
        if (location.startsWith("/") || location.startsWith("./") || location.startsWith("../")) {
            // java.net.URI collapses the '//' before a subdirectory when it resolves (Go keeps it): resolve the
            // package's URL alone and put the subdirectory and the query after it again.
            int stop = location.indexOf('?') < 0 ? location.length() : location.indexOf('?');
            int from = location.startsWith("//") ? 2 : 0;
            int slashes = location.substring(0, stop).indexOf("//", from);
            String pkg = slashes < 0 ? location : location.substring(0, slashes);
            String tail = slashes < 0 ? "" : location.substring(slashes);
            try {
                return parse(downloadUrl.resolve(new URI(pkg)) + tail);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("module source: not a valid relative URL", e);
            }
        }
        return parse(location);
    }

    /** Reads a go-getter source address. */
    public static ModuleSource parse(String source) {
        checkText(source);
        String forced = "";
        String rest = source;
        Matcher m = FORCED.matcher(source);
        if (m.matches()) {
            forced = m.group(1).toLowerCase(Locale.ROOT);
            rest = m.group(2);
        } else {
            String lower = source.toLowerCase(Locale.ROOT);
            if (lower.startsWith("github.com/")) {
                return parseGit(gitHubUrl(rest));
            }
            if (lower.startsWith("bitbucket.org/")) {
                return unsupported("a bitbucket.org shorthand: the CLI asks Bitbucket's API which kind of repository it"
                        + " is; the registry should name git::https://bitbucket.org/... instead");
            }
            if (lower.startsWith("git@")) {
                return unsupported("git over ssh");
            }
            if (lower.startsWith("/")
                    || lower.startsWith(".")
                    || lower.startsWith("file:")
                    || lower.matches("[a-z]:[\\\\/].*")) {
                return unsupported("a local file path");
            }
            if (lower.contains(".amazonaws.com/")) {
                return unsupported("an Amazon S3 bucket");
            }
            if (lower.startsWith("www.googleapis.com/storage/")) {
                return unsupported("a Google Cloud Storage bucket");
            }
        }
        return switch (forced) {
            case "git" -> parseGit(rest);
            case "", "http", "https" -> parseHttp(rest);
            case "s3" -> unsupported("an Amazon S3 bucket (s3::)");
            case "gcs" -> unsupported("a Google Cloud Storage bucket (gcs::)");
            case "hg" -> unsupported("a Mercurial repository (hg::)");
            case "file" -> unsupported("a local file path (file::)");
            default -> unsupported("an unknown getter '" + forced + "::'");
        };
    }

    /**
     * What follows the URL of an archive the mirror serves in the source the CLI is given: the module's
     * subdirectory after {@code //} and the archive type as {@code ?archive=} after it (go-getter takes the
     * subdirectory off before the query), e.g. {@code //sub/dir?archive=tar.gz} for
     * {@code https://mirror/m/x.tar.gz//sub/dir?archive=tar.gz}. The URL it follows must have no query or fragment.
     *
     * @throws IllegalArgumentException when {@code subdirectory} leaves the archive or is not a plain relative path
     */
    public static String onMirrorSuffix(ArchiveType type, String subdirectory) {
        String sub = subdirectory.isEmpty() ? "" : "//" + checkSubdirectory(subdirectory);
        return sub + "?archive=" + type.extension();
    }

    private static void checkText(String source) {
        if (source == null || source.isEmpty() || source.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("module source: empty or longer than " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c <= ' ' || c == 0x7f || c == '\\' || (c >= 0x80 && c <= 0x9f)) {
                throw new IllegalArgumentException(
                        "module source: contains a control character, a space or a" + " backslash at position " + i);
            }
        }
    }

    /** {@code github.com/org/repo[/sub/dir][?query]} as go-getter's GitHub detector reads it. */
    private static String gitHubUrl(String source) {
        int q = source.indexOf('?');
        String path = q < 0 ? source : source.substring(0, q);
        String query = q < 0 ? "" : source.substring(q);
        String[] parts = path.split("/", -1);
        if (parts.length < 3 || parts[1].isEmpty() || parts[2].isEmpty()) {
            throw new IllegalArgumentException("module source: GitHub shorthands are github.com/owner/repository");
        }
        String repo = parts[2].endsWith(".git") ? parts[2] : parts[2] + ".git";
        StringBuilder url = new StringBuilder("https://github.com/")
                .append(parts[1])
                .append('/')
                .append(repo);
        if (parts.length > 3) {
            url.append("//").append(String.join("/", List.of(parts).subList(3, parts.length)));
        }
        return url.append(query).toString();
    }

    private static ModuleSource parseGit(String source) {
        if (!source.regionMatches(true, 0, "https://", 0, "https://".length())) {
            return unsupported(
                    source.contains("://") ? "git over " + source.substring(0, source.indexOf("://")) : "git over ssh");
        }
        Split split = split(source);
        List<String> kept = new ArrayList<>();
        String ref = "";
        for (String param : split.params()) {
            String name = param.split("=", 2)[0];
            if (name.equals("ref")) {
                ref = param.contains("=") ? param.split("=", 2)[1] : "";
            } else if (name.equals("sshkey")) {
                return unsupported("git with an ssh key");
            } else {
                kept.add(param);
            }
        }
        if (ref.startsWith("-")) {
            throw new IllegalArgumentException("module source: a git ref must not start with '-'");
        }
        return new ModuleSource(Kind.GIT, split.url(kept), split.subdirectory(), ref, null, "");
    }

    private static ModuleSource parseHttp(String source) {
        String lower = source.toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://")) {
            Split split = split(source);
            return new ModuleSource(
                    Kind.UNSUPPORTED,
                    split.url(split.params()),
                    split.subdirectory(),
                    "",
                    null,
                    "plain http: the mirror fetches modules over https only");
        }
        if (!lower.startsWith("https://")) {
            return unsupported(lower.contains("://") ? "an unsupported scheme" : "not a URL the mirror can fetch");
        }
        Split split = split(source);
        List<String> kept = new ArrayList<>();
        String archive = null;
        for (String param : split.params()) {
            if (param.split("=", 2)[0].equals("archive")) {
                archive = param.contains("=") ? param.split("=", 2)[1] : "";
            } else {
                kept.add(param);
            }
        }
        URI url = split.url(kept);
        if (archive == null) {
            archive = extensionOf(url.getPath());
        }
        for (ArchiveType type : ArchiveType.values()) {
            if (type.extension().equalsIgnoreCase(archive)) {
                return new ModuleSource(Kind.ARCHIVE, url, split.subdirectory(), "", type, "");
            }
        }
        if (archive.isEmpty() || archive.equals("false")) {
            return unsupported("not an archive (go-getter would GET it and follow its X-Terraform-Get)");
        }
        return unsupported("an archive type the mirror does not unpack: " + archive);
    }

    /** The longest archive extension {@code path} ends with, as go-getter matches it, or empty. */
    private static String extensionOf(String path) {
        String lower = path == null ? "" : path.toLowerCase(Locale.ROOT);
        String best = "";
        for (ArchiveType type : ArchiveType.values()) {
            if (lower.endsWith("." + type.extension()) && type.extension().length() > best.length()) {
                best = type.extension();
            }
        }
        for (String single : SINGLE_FILE) {
            if (best.isEmpty() && lower.endsWith("." + single)) {
                best = single;
            }
        }
        return best;
    }

    private record Split(String base, String subdirectory, List<String> params) {
        URI url(List<String> kept) {
            String text = kept.isEmpty() ? base : base + "?" + String.join("&", kept);
            try {
                URI uri = new URI(text);
                if (uri.getHost() == null || uri.getRawFragment() != null) {
                    throw new IllegalArgumentException("module source: no host, or a fragment");
                }
                return uri;
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("module source: not a valid URL", e);
            }
        }
    }

    /** go-getter's SourceDirSubdir: the subdirectory is the {@code //} part before the query. */
    private static Split split(String source) {
        int stop = source.indexOf('?') < 0 ? source.length() : source.indexOf('?');
        int offset = source.substring(0, stop).indexOf("://") + 3;
        int slashes = source.substring(offset, stop).indexOf("//");
        String base = slashes < 0 ? source.substring(0, stop) : source.substring(0, offset + slashes);
        String subdirectory = slashes < 0 ? "" : checkSubdirectory(source.substring(offset + slashes + 2, stop));
        List<String> params = new ArrayList<>();
        if (stop < source.length()) {
            for (String param : source.substring(stop + 1).split("&")) {
                if (!param.isEmpty()) {
                    params.add(param);
                }
            }
        }
        return new Split(base, subdirectory, params);
    }

    /** A relative path of plain segments: no {@code .}, {@code ..}, empty segments, globs or escapes. */
    private static String checkSubdirectory(String subdirectory) {
        String trimmed =
                subdirectory.endsWith("/") ? subdirectory.substring(0, subdirectory.length() - 1) : subdirectory;
        for (String segment : trimmed.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.matches(".*[*?\\[%:].*")) {
                throw new IllegalArgumentException("module source: the subdirectory must be a plain relative path"
                        + " (no '.', '..', empty segments, globs or escapes)");
            }
        }
        return trimmed;
    }

    /** The source as the CLI would be given it back, for logs: no credentials, no query values. */
    @Override
    public String toString() {
        return switch (kind) {
            case UNSUPPORTED -> "unsupported module source (" + reason + ")";
            case ARCHIVE ->
                Urls.redacted(url) + (subdirectory.isEmpty() ? "" : "//" + subdirectory) + " ("
                        + archiveType.extension() + ")";
            case GIT ->
                "git::" + Urls.redacted(url) + (subdirectory.isEmpty() ? "" : "//" + subdirectory)
                        + (gitRef.isEmpty() ? "" : " at ref " + gitRef);
        };
    }
}
