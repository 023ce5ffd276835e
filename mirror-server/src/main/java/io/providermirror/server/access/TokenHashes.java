package io.providermirror.server.access;

import io.providermirror.server.config.AuthConfig;
import io.providermirror.server.config.ClientConfig;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A set of bearer tokens known by their SHA-256 only (tokens are never kept), each the token of a named {@link
 * Client}, as {@code auth.tokens}, {@code auth.clients} and {@code operator.tokens} configure them: hashes in the
 * configuration and in a file, one per line ({@code [name] sha256:<hex> [hosts=a,b] [namespaces=c,d]}). A presented
 * token is compared with every hash in constant time, so the answer's timing tells nothing of which came close.
 */
public final class TokenHashes {

    /** No token: nothing is accepted. */
    public static final TokenHashes NONE = new TokenHashes(List.of());

    /** One known token and whose it is. */
    private record Entry(byte[] hash, Client client) {}

    private final List<Entry> entries;

    private TokenHashes(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * The hashes of {@code tokens} (each {@code sha256:<hex>}, checked by the configuration) and of the lines of
     * {@code tokensFile} when one is given, without scopes (operator tokens).
     *
     * @param key the configuration key of the file, e.g. {@code operator.tokensFile}, for messages
     */
    public static TokenHashes load(List<String> tokens, Path tokensFile, String key) throws IOException {
        return load(tokens.stream().map(ClientConfig::plain).toList(), tokensFile, key, false);
    }

    /**
     * The tokens of {@code clients} (plain tokens among them, named by {@link ClientConfig#plain}) and of the lines
     * of {@code tokensFile} when one is given; with {@code scoped} a line may limit its client's scope.
     *
     * @throws IOException naming {@code key}, the file, the line and the reason when the file cannot be read or a
     *     line is malformed, or when a name or a hash is given to two different clients
     */
    public static TokenHashes load(List<ClientConfig> clients, Path tokensFile, String key, boolean scoped)
            throws IOException {
        Map<String, ClientConfig> byHash = new LinkedHashMap<>();
        Map<String, String> hashByName = new LinkedHashMap<>();
        for (ClientConfig client : clients) {
            add(client, byHash, hashByName, key.replace("tokensFile", "clients"));
        }
        if (tokensFile != null) {
            List<String> lines;
            try {
                lines = Files.readAllLines(tokensFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IOException(key + ": cannot read " + tokensFile + ": " + e.getMessage(), e);
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String where = key + " " + tokensFile + ", line " + (i + 1);
                ClientConfig client;
                try {
                    client = TokenLine.parse(line, scoped);
                } catch (IllegalArgumentException e) {
                    throw new IOException(where + ": " + e.getMessage(), e);
                }
                add(client, byHash, hashByName, where);
            }
        }
        List<Entry> entries = new ArrayList<>();
        byHash.forEach((hash, client) -> entries.add(new Entry(
                HexFormat.of().parseHex(hash.substring("sha256:".length())),
                new Client(client.name(), new ClientScope(client.hosts(), client.namespaces())))));
        return new TokenHashes(entries);
    }

    /** Adds {@code client}: a repeat of the same client is one; a hash or name of another client is refused. */
    private static void add(
            ClientConfig client, Map<String, ClientConfig> byHash, Map<String, String> hashByName, String where)
            throws IOException {
        ClientConfig known = byHash.get(client.token());
        if (known != null && !known.equals(client)) {
            throw new IOException(where + ": the token " + client.token().substring(0, 15) + "... is already the "
                    + "token of the client '" + known.name() + "' (expected: one client per token)");
        }
        String hashOfName = hashByName.get(client.name());
        if (hashOfName != null && !hashOfName.equals(client.token())) {
            throw new IOException(where + ": the name '" + client.name() + "' is already another client's "
                    + "(expected: each name once)");
        }
        byHash.put(client.token(), client);
        hashByName.put(client.name(), client.token());
    }

    /** True when no token is known. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** Every client with a token here, in the order configured. */
    public List<Client> clients() {
        return entries.stream().map(Entry::client).toList();
    }

    /** True when {@code authorization} ({@code Bearer <token>}) carries one of these tokens. */
    public boolean accepts(String authorization) {
        return client(authorization).isPresent();
    }

    /**
     * The client whose token {@code authorization} ({@code Bearer <token>}) carries; every hash is compared, in
     * constant time, whichever matches.
     */
    public Optional<Client> client(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        byte[] presented = digest(authorization.substring(7));
        Client found = null;
        for (Entry entry : entries) {
            boolean equal = MessageDigest.isEqual(entry.hash(), presented);
            found = equal ? entry.client() : found;
        }
        return Optional.ofNullable(found);
    }

    /** {@code sha256:<hex>} of a token, as the configuration wants it. */
    public static String hash(String token) {
        return "sha256:" + HexFormat.of().formatHex(digest(token));
    }

    private static byte[] digest(String token) {
        return PackageHashes.sha256().digest(token.strip().getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code text} is a token's hash as {@link AuthConfig#TOKEN_HASH} writes it. */
    static boolean isHash(String text) {
        return AuthConfig.TOKEN_HASH.matcher(text).matches();
    }
}
