package io.providermirror.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.server.app.BucketDocuments;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.logging.LoggingSetup;
import io.providermirror.server.tlog.Checkpoint;
import io.providermirror.server.tlog.HttpLogSource;
import io.providermirror.server.tlog.LogAudit;
import io.providermirror.server.tlog.LogKey;
import io.providermirror.server.tlog.LogKeyFile;
import io.providermirror.server.tlog.LogSource;
import io.providermirror.server.tlog.LogStorage;
import io.providermirror.server.tlog.NoteVerifier;
import io.providermirror.server.tlog.SignedNote;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code log}: checking and exporting the mirror's transparency log. */
@Command(
        name = "log",
        mixinStandardHelpOptions = true,
        description = "Checks or exports the mirror's transparency log (docs/transparency-log.md).",
        subcommands = {LogCommand.Verify.class, LogCommand.Export.class})
public final class LogCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        System.out.println("log: name a subcommand: verify or export (see log --help)");
        return 2;
    }

    /** Where the log is read from: a cache directory (its configuration) or a mirror's URL, and the key to trust. */
    static final class Source {

        @Option(names = "--config", paramLabel = "FILE", description = "the mirror's configuration (its cache)")
        Path config;

        @Option(
                names = "--url",
                paramLabel = "URL",
                description = "read the log a mirror serves instead, e.g. https://mirror.example/log/ (needs --key)")
        URI url;

        @Option(
                names = "--key",
                paramLabel = "VERIFIER_KEY",
                description = "the log's verifier key, as the status page shows it (default with a cache: the key "
                        + "kept beside it)")
        String key;

        @Option(
                names = "--token-file",
                paramLabel = "FILE",
                description = "a file holding a client token, for a mirror with access control (with --url)")
        Path tokenFile;

        /** The log and the verifier it is checked with; closing it releases what it was read through. */
        record Opened(LogSource source, NoteVerifier verifier, Runnable release) implements AutoCloseable {
            Opened(LogSource source, NoteVerifier verifier) {
                this(source, verifier, () -> {});
            }

            @Override
            public void close() {
                release.run();
            }
        }

        Opened open(String command, Map<String, String> environment, PrintStream out)
                throws ConfigException, IOException {
            if (url != null) {
                if (key == null) {
                    throw new ConfigException("--url needs --key: the log's verifier key, as the mirror's status page "
                            + "shows it (a key read from the same server would prove nothing)");
                }
                String authorization = tokenFile == null
                        ? null
                        : "Bearer "
                                + Files.readString(tokenFile, StandardCharsets.UTF_8)
                                        .strip();
                HttpClient client = HttpClient.newBuilder()
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
                out.println(command + ": reading " + url);
                return new Opened(new HttpLogSource(client, url, authorization), verifier(key));
            }
            MirrorConfig loaded =
                    CommandCache.configuration(command, config, environment, UnaryOperator.identity(), out);
            Path directory = loaded.cache().directory().toAbsolutePath().normalize();
            NoteVerifier verifier;
            if (key != null) {
                verifier = verifier(key);
            } else {
                Path keys = LogKeyFile.directoryBeside(directory);
                LogKey found = LogKeyFile.load(keys)
                        .orElseThrow(() -> new ConfigException(
                                "no log key in " + keys + ": give the log's verifier key with --key"));
                verifier = found.verifier();
                out.println(command + ": trusting the key in " + keys + " (give --key to trust one you kept instead)");
            }
            if (loaded.cache().s3() != null) {
                // Each instance keeps its own log in the bucket, beneath its key's ID: this one's, by the key.
                BucketDocuments bucket = BucketDocuments.open(loaded.cache().s3(), Clock.systemUTC());
                out.println(command + ": reading the log of key " + verifier.keyIdHex() + " in bucket "
                        + loaded.cache().s3().bucket());
                return new Opened(new LogStorage(bucket.documents(), verifier.keyIdHex()), verifier, bucket::close);
            }
            FileDocumentStore documents = new FileDocumentStore(directory, Clock.systemUTC());
            return new Opened(new LogStorage(documents, verifier.keyIdHex()), verifier);
        }

        private static NoteVerifier verifier(String key) throws ConfigException {
            try {
                return NoteVerifier.parse(key);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("--key: " + e.getMessage());
            }
        }
    }

    /** {@code log verify}: a whole check of the log, and that it only grew since a saved checkpoint. */
    @Command(
            name = "verify",
            mixinStandardHelpOptions = true,
            description = {
                "Checks a transparency log whole: the checkpoint's signature, every entry, the Merkle tree recomputed "
                        + "from the entries against the checkpoint's root hash, and every hash tile. With --saved, "
                        + "also that the log only grew since that checkpoint (a consistency proof). Reads the cache "
                        + "of --config (the mirror may be running) or, with --url and --key, a mirror's /log/.",
                "Exits 0 when the log checks out, 1 when it does not, 2 when nothing could be checked."
            })
    public static final class Verify implements Callable<Integer> {

        @Mixin
        Source source = new Source();

        @Option(names = "--saved", paramLabel = "FILE", description = "a checkpoint saved earlier (e.g. by --save)")
        Path saved;

        @Option(names = "--save", paramLabel = "FILE", description = "save the verified checkpoint to FILE")
        Path save;

        private final PrintStream out;
        private final Map<String, String> environment;

        public Verify() {
            this(System.out, System.getenv());
        }

        public Verify(PrintStream out, Map<String, String> environment) {
            this.out = out;
            this.environment = Map.copyOf(environment);
        }

        @Override
        public Integer call() {
            LoggingSetup.forCommand(false);
            try (Source.Opened opened = source.open("log verify", environment, out)) {
                Optional<Checkpoint> earlier = Optional.empty();
                if (saved != null) {
                    earlier = Optional.of(Checkpoint.open(Files.readAllBytes(saved), opened.verifier()));
                }
                LogAudit.Audited audited = LogAudit.audit(opened.source(), opened.verifier());
                Checkpoint checkpoint = audited.checkpoint();
                out.println("log verify: " + checkpoint.origin() + ": " + checkpoint.size() + " entries, root hash "
                        + Base64.getEncoder().encodeToString(checkpoint.rootHash()) + "; the signature, every entry "
                        + "and every tile check out");
                if (earlier.isPresent()) {
                    LogAudit.checkConsistency(earlier.get(), audited);
                    out.println("log verify: the log only grew since the saved checkpoint ("
                            + earlier.get().size() + " entries, root hash "
                            + HexFormat.of().formatHex(earlier.get().rootHash()) + ")");
                }
                if (save != null) {
                    Files.write(save, audited.note());
                    out.println("log verify: saved the checkpoint to " + save);
                }
                return 0;
            } catch (LogAudit.AuditException | SignedNote.InvalidNoteException e) {
                out.println("log verify: FAILED: " + e.getMessage());
                return 1;
            } catch (ConfigException | IOException | RuntimeException e) {
                out.println("log verify: " + e.getMessage());
                return 2;
            }
        }
    }

    /** {@code log export}: the log's entries as JSON lines for a SIEM, after checking the log whole. */
    @Command(
            name = "export",
            mixinStandardHelpOptions = true,
            description = {
                "Writes the transparency log's entries to standard output as JSON lines, each with its index in "
                        + "the log, after checking the log as verify does. --from skips the entries an earlier "
                        + "export delivered.",
                "Exits 0 when exported, 1 when the log does not check out, 2 when nothing could be read."
            })
    public static final class Export implements Callable<Integer> {

        @Mixin
        Source source = new Source();

        @Option(names = "--from", paramLabel = "INDEX", description = "the first entry to write (default: 0)")
        long from;

        private final PrintStream out;
        private final PrintStream messages;
        private final Map<String, String> environment;

        public Export() {
            this(System.out, System.err, System.getenv());
        }

        public Export(PrintStream out, PrintStream messages, Map<String, String> environment) {
            this.out = out;
            this.messages = messages;
            this.environment = Map.copyOf(environment);
        }

        @Override
        public Integer call() {
            LoggingSetup.forCommand(false);
            ObjectMapper json = new ObjectMapper();
            try (Source.Opened opened = source.open("log export", environment, messages)) {
                LogAudit.Audited audited = LogAudit.audit(opened.source(), opened.verifier());
                for (int index = (int)
                                Math.max(0, Math.min(from, audited.entries().size()));
                        index < audited.entries().size();
                        index++) {
                    ObjectNode line = json.createObjectNode();
                    line.put("index", index);
                    line.put("log", audited.checkpoint().origin());
                    line.setAll((ObjectNode) json.readTree(audited.entries().get(index)));
                    out.println(json.writeValueAsString(line));
                }
                out.flush();
                messages.println("log export: wrote entries " + from + " to "
                        + (audited.entries().size() - 1) + " of "
                        + audited.checkpoint().origin());
                return 0;
            } catch (LogAudit.AuditException e) {
                messages.println("log export: FAILED: the log does not check out: " + e.getMessage());
                return 1;
            } catch (ConfigException | IOException | RuntimeException e) {
                messages.println("log export: " + e.getMessage());
                return 2;
            }
        }
    }
}
