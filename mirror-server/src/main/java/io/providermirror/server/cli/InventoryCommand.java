package io.providermirror.server.cli;

import io.providermirror.server.app.SharedDocuments;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.inventory.InventoryAnswer;
import io.providermirror.server.inventory.InventoryQuery;
import io.providermirror.server.inventory.InventoryShards;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.server.logging.LoggingSetup;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code inventory}: the usage inventory of a cache (every instance's shard, merged), as CSV or JSON. */
@Command(
        name = "inventory",
        sortOptions = false,
        description = {
            "Prints the usage inventory: each provider version and platform, and each module version, that clients "
                    + "downloaded through the mirror, with the first and last time, the number of requests and the "
                    + "client names, merged over every instance sharing the cache.",
            "Reads the instances' inventory shards in the cache (--config; the bucket with cache.s3) without the cache "
                    + "directory's lock, so it works beside a running mirror; what a running instance counted since "
                    + "its last flush (inventory.flushInterval) is not in them yet.",
            "Exits 0 when printed, 2 on a usage error, a configuration that does not load or a store that does not "
                    + "answer."
        },
        footer = {"", "Example:", "  inventory --config mirror.yaml --address hashicorp/aws --version '< 5.0'"})
public final class InventoryCommand implements Callable<Integer> {

    /** The formats the command writes. */
    enum Format {
        csv,
        json
    }

    // No mixinStandardHelpOptions: its --version would take the name of the version filter.
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help message and exit.")
    boolean help;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "the mirror's configuration (its cache directory, or cache.s3)")
    Path config;

    @Option(names = "--format", paramLabel = "csv|json", description = "csv (the default) or json")
    Format format = Format.csv;

    @Option(
            names = "--address",
            paramLabel = "ADDRESS",
            description = "only what is under this address, e.g. hashicorp/aws (on registry.terraform.io) or "
                    + "example.com/team")
    String address;

    @Option(
            names = "--version",
            paramLabel = "CONSTRAINT",
            description = "only versions meeting this constraint, in Terraform's syntax, e.g. '< 5.0'")
    String version;

    @Option(names = "--client", paramLabel = "NAME", description = "only what this client name requested")
    String client;

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> environment;

    public InventoryCommand() {
        this(System.out, System.err, System.getenv());
    }

    /** @param err where the cache directory and errors are named, so that {@code out} carries only the answer */
    public InventoryCommand(PrintStream out, PrintStream err, Map<String, String> environment) {
        this.out = out;
        this.err = err;
        this.environment = Map.copyOf(environment);
    }

    @Override
    public Integer call() {
        LoggingSetup.forCommand(false);
        InventoryQuery query;
        try {
            query = InventoryQuery.parse(address, version, client);
        } catch (IllegalArgumentException e) {
            err.println("inventory: --" + e.getMessage());
            return 2;
        }
        try {
            MirrorConfig loaded =
                    CommandCache.configuration("inventory", config, environment, UnaryOperator.identity(), err);
            Map<UsageItem, Usage> merged;
            try (SharedDocuments shared = SharedDocuments.open(loaded, Clock.systemUTC())) {
                merged = InventoryShards.readAll(shared.documents(), null);
            }
            List<Map.Entry<UsageItem, Usage>> items = query.select(merged);
            if (format == Format.json) {
                out.println(new String(InventoryAnswer.json(items), StandardCharsets.UTF_8));
            } else {
                out.print(InventoryAnswer.csv(items));
            }
            out.flush();
            return 0;
        } catch (ConfigException | IOException e) {
            err.println("inventory: " + e.getMessage());
            return 2;
        }
    }
}
