package io.providermirror.server.access;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.AuthConfig;
import io.providermirror.server.config.ClientConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Access control on the front. Version lists and version documents want a bearer token whose SHA-256 is
 * configured (tokens are never kept, only their hashes), as the CLI sends it from a
 * {@code credentials "<mirror-host>"} block. The CLI sends no credentials when it downloads an archive, so
 * version documents hand out archive URLs signed with HMAC-SHA256 over the archive's identity (hostname,
 * namespace, type, version, platform: not the path, so a reverse proxy's prefix does not matter) and an
 * expiry; an altered, expired or foreign URL is refused.
 */
public final class MirrorAuth {

    /** Access control off: everything is open. */
    public static final MirrorAuth OPEN = new MirrorAuth(TokenHashes.NONE, null, Duration.ZERO, Clock.systemUTC());

    /** The key of the tokens file, for messages. */
    private static final String TOKENS_FILE = "auth.tokensFile";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MirrorAuth.class);
    private static final int KEY_BYTES = 32;

    /** What became of an archive request's signature. */
    public record ArchiveVerdict(boolean allowed, String reason) {}

    /** The query parameter naming the client a signed archive URL was issued to (covered by its signature). */
    public static final String CLIENT_PARAMETER = "client";

    private final TokenHashes tokenHashes;
    private final byte[] key;
    private final Duration ttl;
    private final Clock clock;
    private final ClientSightings sightings;

    private MirrorAuth(TokenHashes tokenHashes, byte[] key, Duration ttl, Clock clock) {
        this.tokenHashes = tokenHashes;
        this.sightings = new ClientSightings(tokenHashes.clients(), clock);
        this.key = key;
        this.ttl = ttl;
        this.clock = clock;
    }

    /** Access control as configured; {@link #OPEN} when no tokens are. */
    public static MirrorAuth load(AuthConfig config, Path cacheDirectory, Clock clock) throws IOException {
        if (!config.enabled()) {
            return OPEN;
        }
        List<ClientConfig> clients = new ArrayList<>();
        config.tokens().forEach(hash -> clients.add(ClientConfig.plain(hash)));
        clients.addAll(config.clients());
        TokenHashes hashes = TokenHashes.load(clients, config.tokensFile(), TOKENS_FILE, true);
        if (hashes.isEmpty()) {
            LOG.warn("access control is on but no token is configured: every JSON request will be refused");
        }
        Path keyFile = config.urlSigningKeyFile() != null
                ? config.urlSigningKeyFile()
                : cacheDirectory.resolve("auth").resolve("url-signing.key");
        return new MirrorAuth(
                hashes, signingKey(keyFile, config.urlSigningKeyFile() == null), config.archiveUrlTtl(), clock);
    }

    /** The key in {@code file}; a generated one (kept, readable by its owner only) when the mirror owns the file. */
    private static byte[] signingKey(Path file, boolean generate) throws IOException {
        if (Files.exists(file)) {
            byte[] bytes = Files.readAllBytes(file);
            if (bytes.length < KEY_BYTES) {
                throw new IOException("the archive URL signing key " + file + " is " + bytes.length
                        + " bytes (expected: at least " + KEY_BYTES + ")");
            }
            return bytes;
        }
        if (!generate) {
            throw new IOException("auth.urlSigningKeyFile " + file + " does not exist (expected: " + KEY_BYTES
                    + " or more random bytes, e.g. from `head -c 32 /dev/urandom`)");
        }
        byte[] bytes = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(bytes);
        Files.createDirectories(file.getParent());
        Path temporary = Files.createTempFile(file.getParent(), "url-signing", ".tmp");
        try {
            try {
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException notPosix) {
                // Not a POSIX file system; the directory's own protection applies.
            }
            Files.write(temporary, bytes);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException raced) {
            return Files.readAllBytes(file);
        } finally {
            Files.deleteIfExists(temporary);
        }
        LOG.info("generated the archive URL signing key {}", file);
        return bytes;
    }

    public boolean enabled() {
        return key != null;
    }

    /** True when {@code authorization} ({@code Bearer <token>}) carries an accepted token. */
    public boolean accepts(String authorization) {
        if (!enabled()) {
            return true;
        }
        return tokenHashes.accepts(authorization);
    }

    /**
     * The client {@code authorization} ({@code Bearer <token>}) names: {@link Client#ANONYMOUS} while access control
     * is off, empty when it is on and the header carries no accepted token.
     */
    public Optional<Client> client(String authorization) {
        if (!enabled()) {
            return Optional.of(Client.ANONYMOUS);
        }
        return tokenHashes.client(authorization);
    }

    /** Every configured client, in the order configured (none while access control is off). */
    public List<Client> clients() {
        return tokenHashes.clients();
    }

    /** When each configured client was last seen. */
    public ClientSightings sightings() {
        return sightings;
    }

    /**
     * The query string that makes an archive's URL valid for the next {@code archiveUrlTtl}, issued to the client
     * named {@code client} (the CLI sends no token for archives: the name travels in the URL, under the signature).
     */
    public String archiveQuery(ProviderAddress address, ProviderVersion version, Platform platform, String client) {
        return signedQuery(subject(address, version, platform), client);
    }

    /**
     * The query string that makes the URL of a module version's archive valid for the next {@code archiveUrlTtl},
     * issued to the client named {@code client}.
     */
    public String moduleArchiveQuery(ModuleAddress address, ProviderVersion version, String client) {
        return signedQuery(subject(address, version), client);
    }

    private String signedQuery(String subject, String client) {
        long expires = clock.instant().plus(ttl).getEpochSecond();
        Optional<String> named = named(client);
        return "expires=" + expires
                + named.map(name -> "&" + CLIENT_PARAMETER + "=" + name).orElse("")
                + "&signature=" + signature(signed(subject, named), expires);
    }

    /** A configured client's name; empty for an anonymous request (its URLs name no client, as before). */
    private static Optional<String> named(String client) {
        return client == null || client.equals(Client.ANONYMOUS.name()) ? Optional.empty() : Optional.of(client);
    }

    /** What a signature covers: the archive, and the client it was issued to when one is named. */
    private static String signed(String subject, Optional<String> client) {
        return client.map(name -> subject + "\nclient " + name).orElse(subject);
    }

    /**
     * The configured client a signed archive URL names, once its signature has been checked; empty when it names
     * none, or one no longer configured.
     */
    public Optional<Client> signedClient(Optional<String> name) {
        return name.flatMap(
                n -> clients().stream().filter(c -> c.name().equals(n)).findFirst());
    }

    /** Whether a module archive request may proceed: a valid signed URL, or an accepted bearer token. */
    public ArchiveVerdict checkModuleArchive(
            ModuleAddress address,
            ProviderVersion version,
            Optional<String> expires,
            Optional<String> signature,
            Optional<String> client,
            String authorization) {
        return check(
                signed(subject(address, version), client),
                expires,
                signature,
                authorization,
                "a module's download answer");
    }

    private static String subject(ProviderAddress address, ProviderVersion version, Platform platform) {
        return address + "/" + version + "/" + platform;
    }

    /** Another shape than a provider's subject (which has a platform), so one signature never fits the other. */
    private static String subject(ModuleAddress address, ProviderVersion version) {
        return "module " + address + " " + version;
    }

    /** Whether an archive request may proceed: a valid signed URL, or an accepted bearer token. */
    public ArchiveVerdict checkArchive(
            ProviderAddress address,
            ProviderVersion version,
            Platform platform,
            Optional<String> expires,
            Optional<String> signature,
            Optional<String> client,
            String authorization) {
        return check(
                signed(subject(address, version, platform), client),
                expires,
                signature,
                authorization,
                "a version document (<version>.json)");
    }

    /**
     * Whether a request for the SHA256SUMS or signature a providers.v1 download document names may proceed: they
     * carry the signed query of the package's archive, or the request an accepted bearer token.
     */
    public ArchiveVerdict checkRegistryFile(
            ProviderAddress address,
            ProviderVersion version,
            Platform platform,
            Optional<String> expires,
            Optional<String> signature,
            Optional<String> client,
            String authorization) {
        return check(
                signed(subject(address, version, platform), client),
                expires,
                signature,
                authorization,
                "a download document (providers.v1 .../download/<os>/<arch>)");
    }

    private ArchiveVerdict check(
            String subject, Optional<String> expires, Optional<String> signature, String authorization, String source) {
        if (!enabled() || authorization != null && accepts(authorization)) {
            return new ArchiveVerdict(true, null);
        }
        if (expires.isEmpty() || signature.isEmpty()) {
            return new ArchiveVerdict(
                    false, "archive URLs of this mirror are signed: take them from " + source + ", as the CLI does");
        }
        long expiry;
        try {
            expiry = Long.parseLong(expires.get());
        } catch (NumberFormatException e) {
            return new ArchiveVerdict(false, "this archive URL is not valid: its expiry is not a number");
        }
        byte[] expected = signature(subject, expiry).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, signature.get().getBytes(StandardCharsets.US_ASCII))) {
            return new ArchiveVerdict(
                    false, "this archive URL is not valid: its signature does not match this archive");
        }
        if (clock.instant().getEpochSecond() > expiry) {
            return new ArchiveVerdict(
                    false,
                    "this archive URL expired: signed archive URLs are valid for " + ttl.toMinutes()
                            + " minutes; ask for the version document again (run init again)");
        }
        return new ArchiveVerdict(true, null);
    }

    private String signature(String subject, long expires) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] digest = mac.doFinal((subject + "\n" + expires).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    }

    /** {@code sha256:<hex>} of a token, as the configuration wants it. */
    public static String hash(String token) {
        return TokenHashes.hash(token);
    }
}
