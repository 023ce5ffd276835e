package io.providermirror.server.cli;

import io.providermirror.server.BuildInfo;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.app.StartupBanner;
import io.providermirror.server.app.StartupPreload;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.ConfiguredFiles;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.logging.LoggingSetup;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The command line: {@code java -jar mirror-server.jar [--config FILE]} starts the mirror. */
@Command(
        name = "provider-mirror",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        // Added by commandLine() after the other commands, so the help lists them in that order.
        addMethodSubcommands = false,
        description = "A caching pull-through network mirror for Terraform and OpenTofu providers.",
        footer = {
            "",
            "Every configuration key can also be set with an environment variable, e.g. "
                    + "PROVIDER_MIRROR_SERVER_PORT=9443; see the README."
        })
public final class Main implements Callable<Integer> {

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "YAML configuration file (default: built-in defaults)")
    private Path config;

    @Option(
            names = "--verify-cache",
            description = "hash every cached archive before serving; remove those that no longer match")
    private boolean verifyCache;

    /**
     * How long an idle connection to an origin is kept for reuse. The JDK's client keeps them 20 minutes,
     * unbounded in number, so a burst of cold misses would hold one socket per concurrent origin request for
     * that long. Set before the client class loads; an explicit {@code -D} wins.
     */
    static final String ORIGIN_KEEP_ALIVE_PROPERTY = "jdk.httpclient.keepalive.timeout";

    static final String ORIGIN_KEEP_ALIVE_SECONDS = "30";

    /**
     * The JDK's HTTP client refuses Basic authentication to a proxy for HTTPS tunnels unless this names no
     * scheme; corporate proxies mostly want exactly that. Set before the client class loads; {@code -D} wins.
     */
    static final String TUNNEL_AUTH_PROPERTY = "jdk.http.auth.tunneling.disabledSchemes";

    public static void main(String[] args) {
        if (System.getProperty(ORIGIN_KEEP_ALIVE_PROPERTY) == null) {
            System.setProperty(ORIGIN_KEEP_ALIVE_PROPERTY, ORIGIN_KEEP_ALIVE_SECONDS);
        }
        if (System.getProperty(TUNNEL_AUTH_PROPERTY) == null) {
            System.setProperty(TUNNEL_AUTH_PROPERTY, "");
        }
        java.util.Optional<ServeArguments> serve = ServeArguments.parse(args, COMMAND_NAMES);
        if (serve.isPresent()) {
            StartupPreload.start();
            int exitCode;
            try {
                exitCode = new Main(serve.get()).serve();
            } catch (RuntimeException | Error e) {
                // As picocli's execute() ends a failed command: the trace, then exit code 1 (else a failure after
                // the listeners came up would leave them serving with nobody waiting on them).
                e.printStackTrace();
                exitCode = 1;
            }
            System.exit(exitCode);
        }
        System.exit(commandLine().execute(args));
    }

    /** For picocli, which sets the options' fields. */
    Main() {}

    private Main(ServeArguments arguments) {
        this.config = arguments.config().orElse(null);
        this.verifyCache = arguments.verifyCache();
    }

    /** The commands besides serving, in the order the help lists them (then hash-token and healthcheck). */
    private static final List<Class<?>> COMMANDS = List.of(
            WarmCommand.class,
            ExportCommand.class,
            ImportCommand.class,
            ModulesCommand.class,
            PurgeCommand.class,
            RetentionCommand.class,
            LogCommand.class,
            InventoryCommand.class);

    /** The names of every command, the ones of {@link #COMMANDS} and the methods below (MainTest checks). */
    static final Set<String> COMMAND_NAMES = Set.of(
            "warm",
            "export",
            "import",
            "modules",
            "purge",
            "retention",
            "log",
            "inventory",
            "hash-token",
            "healthcheck");

    /** The command line, with every command: what reads the arguments {@link ServeArguments} leaves. */
    static CommandLine commandLine() {
        CommandLine line = new CommandLine(new Main());
        for (Class<?> command : COMMANDS) {
            line.addSubcommand(command);
        }
        line.getCommandSpec().addMethodSubcommands();
        return line;
    }

    @Override
    public Integer call() throws Exception {
        return serve();
    }

    /** Starts the mirror and serves until it stops; the exit code. */
    private int serve() {
        PrintWriter err = new PrintWriter(System.err, true, Charset.defaultCharset());
        MirrorConfig mirrorConfig;
        try {
            mirrorConfig = new ConfigLoader(System.getenv()).load(config);
            ConfiguredFiles.check(mirrorConfig);
        } catch (ConfigException e) {
            err.println("provider-mirror: " + e.getMessage());
            return 2;
        }
        LoggingSetup.apply(mirrorConfig.logging());
        MirrorApplication application;
        try {
            application = MirrorApplication.start(
                    mirrorConfig,
                    Clock.systemUTC(),
                    verifyCache,
                    java.util.function.UnaryOperator.identity(),
                    io.providermirror.server.operator.OperatorService::new);
        } catch (java.io.IOException e) {
            err.println("provider-mirror: cannot start: " + e.getMessage());
            return 1;
        } catch (Exception e) {
            err.println("provider-mirror: cannot start: " + e);
            return 1;
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                application.shutdown(mirrorConfig.server().shutdownGracePeriod());
                            } finally {
                                LoggingSetup.flush();
                                // SIGTERM is how service managers and orchestrators ask for a stop, and a drained stop
                                // is a clean
                                // one: exit 0 rather than the JVM's 143. halt() ends the JVM now; the other hooks have
                                // nothing to do.
                                Runtime.getRuntime().halt(0);
                            }
                        },
                        "shutdown"));
        System.out.println(StartupBanner.render(application, mirrorConfig));
        System.out.flush();
        try {
            application.awaitClose();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** {@code hash-token}: what {@code auth.tokens} holds for a token, so tokens themselves are never stored. */
    @Command(
            name = "hash-token",
            mixinStandardHelpOptions = true,
            description = {
                "Prints the sha256: hash of a token read from standard input, for auth.tokens or auth.tokensFile (client "
                        + "tokens), or operator.tokens or operator.tokensFile (operator tokens).",
                "With --generate, makes a new random token and prints it and its hash."
            })
    int hashToken(@Option(names = "--generate", description = "make a new random token") boolean generate)
            throws java.io.IOException {
        String token;
        if (generate) {
            byte[] random = new byte[32];
            new java.security.SecureRandom().nextBytes(random);
            token = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            System.out.println("token: " + token + "   (give it to the users of the mirror)");
            System.out.println("hash:  " + MirrorAuth.hash(token)
                    + "   (put this in auth.tokens, or operator.tokens for an operator token)");
            return 0;
        }
        String line = new java.io.BufferedReader(
                        new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))
                .readLine();
        if (line == null || line.isBlank()) {
            System.err.println("provider-mirror: hash-token reads the token from standard input; none was given");
            return 2;
        }
        System.out.println(MirrorAuth.hash(line));
        return 0;
    }

    /** {@code healthcheck}: for container health checks, where the image has no curl. */
    @Command(
            name = "healthcheck",
            mixinStandardHelpOptions = true,
            description = "Exits 0 when the mirror answers 200 at --url (its readiness), 1 otherwise.")
    int healthcheck(
            @Option(
                            names = "--url",
                            defaultValue = "http://127.0.0.1:9100/readyz",
                            paramLabel = "URL",
                            description =
                                    "what to ask (default: ${DEFAULT-VALUE}, the management listener's readiness)")
                    java.net.URI url,
            @Option(
                            names = "--ca",
                            paramLabel = "FILE",
                            description =
                                    "PEM CA certificates to trust for an https URL (e.g. <cache.directory>-tls/ca.pem)")
                    Path ca) {
        try {
            java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                    .connectTimeout(java.time.Duration.ofSeconds(3))
                    .sslContext(io.providermirror.upstream.TrustedCertificates.sslContext(ca))
                    .build();
            java.net.http.HttpResponse<String> response = client.send(
                    java.net.http.HttpRequest.newBuilder(url)
                            .timeout(java.time.Duration.ofSeconds(5))
                            .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            System.out.println(response.statusCode() + " " + response.body());
            return response.statusCode() == 200 ? 0 : 1;
        } catch (java.io.IOException | RuntimeException e) {
            System.out.println("unhealthy: " + url + ": " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** The version shown by {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"provider-mirror " + BuildInfo.VERSION};
        }
    }
}
