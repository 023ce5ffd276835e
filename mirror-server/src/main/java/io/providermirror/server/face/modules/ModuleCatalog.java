package io.providermirror.server.face.modules;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.DocumentStore;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.LaneFullException;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.verify.VerificationException;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The full module registry API beside the protocol, as plain Java: lists (all, one namespace), search, a module's
 * latest version for every system or for one, and a version's details. Pulled through from origins that offer them
 * and held like version lists ({@link PulledAnswers}: the index TTL, stale-if-error, one pull for concurrent
 * callers); each origin answer read field by field ({@link ModuleApiDocuments}) and rewritten, its sources pointing
 * at the mirror. The policy filters every answer: a denied module is not listed, found or described;
 * a version the release-age quarantine holds back is left out of lists and refused, with its rule and date, when its
 * details are asked for. Offline, or
 * when the origin fails or implements only the protocol, the answer is built from what the mirror holds
 * ({@link CatalogFromCache}), and says so ({@link ModuleApiAnswer.Source#CACHE}).
 */
public final class ModuleCatalog {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** The most memory the origins' answers take. */
    private static final long MAX_ANSWER_BYTES = 32L << 20;

    /** An origin's list, search or latest-for-every-system answer, by what was asked. */
    private record ListKey(String hostname, String path, Map<String, String> parameters) {
        @Override
        public String toString() {
            return "the module registry answer " + ModuleLinks.page(hostname, path, parameters);
        }
    }

    /** A version's details, by version. */
    private record DetailsKey(ModuleAddress address, ProviderVersion version) {
        @Override
        public String toString() {
            return "the details of module " + address + " " + version;
        }
    }

    private final ModuleMirror.Settings settings;
    private final ModuleMirror modules;
    private final ModuleVersionAnswers ages;
    private final ModuleOrigins origins;
    private final KnownModules known;
    private final CatalogFromCache fromCache;
    private final ModulePolicy policy;
    private final OriginRules rules;
    private final Executor executor;
    private final PulledAnswers<ListKey, ModuleApiDocuments.Listing> listings;
    private final PulledAnswers<DetailsKey, ModuleApiDocuments.Details> details;

    ModuleCatalog(
            ModuleMirror.Settings settings,
            ModuleMirror modules,
            ModuleVersionAnswers ages,
            ModuleOrigins origins,
            DocumentStore documents,
            ModulePolicy policy,
            OriginRules rules,
            Executor executor,
            HostLanes lanes,
            Clock clock) {
        this.settings = settings;
        this.modules = modules;
        this.ages = ages;
        this.origins = origins;
        this.known = new KnownModules(documents);
        this.fromCache = new CatalogFromCache(known, modules, policy, ages);
        this.policy = policy;
        this.rules = rules;
        this.executor = executor;
        this.listings = PulledAnswers.builder(this::pullListing, executor, clock, settings.indexTtl())
                .weighing(listing -> 320 + 512 * listing.modules().size(), MAX_ANSWER_BYTES / 2)
                .rememberingFailuresBriefly()
                .pulledPerHost(lanes, ListKey::hostname)
                .build();
        this.details = PulledAnswers.builder(this::pullDetails, executor, clock, settings.indexTtl())
                .weighing(
                        pulled -> 576
                                + pulled.parts().toString().length()
                                + 16 * pulled.versions().size(),
                        MAX_ANSWER_BYTES / 2)
                .rememberingFailuresBriefly()
                .pulledPerHost(lanes, key -> key.address().hostname())
                .build();
    }

    /** {@code GET <base>} and {@code GET <base>:namespace}: the modules of a host, or of one namespace of it. */
    public CompletableFuture<ModuleApiAnswer> list(
            String hostname, Optional<String> namespace, ModuleApiQuery query, ModuleLinks links) {
        return listing(
                hostname,
                namespace.orElse(""),
                query,
                links,
                facts -> namespace.map(facts.address().namespace()::equals).orElse(true));
    }

    /** {@code GET <base>search?q=...}: modules whose names or descriptions match. */
    public CompletableFuture<ModuleApiAnswer> search(String hostname, ModuleApiQuery query, ModuleLinks links) {
        String q = query.q().orElse("");
        return listing(
                hostname,
                "search",
                query,
                links,
                facts -> query.namespace()
                                .map(facts.address().namespace()::equals)
                                .orElse(true)
                        && CatalogFromCache.matches(facts, q));
    }

    /** {@code GET <base>:namespace/:name}: the latest version of a module for every system. */
    public CompletableFuture<ModuleApiAnswer> latestForEverySystem(
            String hostname, String namespace, String name, ModuleApiQuery query, ModuleLinks links) {
        return listing(
                hostname,
                namespace + "/" + name,
                query,
                links,
                facts -> facts.address().namespace().equals(namespace)
                        && facts.address().name().equals(name));
    }

    /** {@code GET <base>:namespace/:name/:system}: the details of the newest version the policy lets in. */
    public CompletableFuture<ModuleApiAnswer> latest(ModuleAddress address, ModuleLinks links) {
        return latestVersion(address).thenCompose(version -> details(address, version, links));
    }

    /**
     * The newest version of {@code address} the policy lets in (a release before a pre-release): from its version
     * list, else, when that cannot be had, from the versions the mirror learnt of.
     */
    public CompletableFuture<ProviderVersion> latestVersion(ModuleAddress address) {
        return modules.allowedVersions(address)
                .thenApply(versions -> newest(versions)
                        .orElseThrow(() -> new OriginException(
                                OriginException.Reason.NOT_FOUND, "module " + address + " lists no version")))
                .exceptionallyCompose(failure -> fallback(
                        failure,
                        () -> newest(fromCache.knownVersions(address))
                                .orElseThrow(() -> unchecked(Futures.cause(failure)))));
    }

    /** {@code GET <base>:namespace/:name/:system/:version}: a version's details. */
    public CompletableFuture<ModuleApiAnswer> details(
            ModuleAddress address, ProviderVersion version, ModuleLinks links) {
        Optional<String> refused = modules.refusal(address, version);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(
                    refused.get().startsWith("refused to fetch")
                            ? new OriginException(OriginException.Reason.FORBIDDEN, refused.get())
                            : new PolicyDeniedException(refused.get()));
        }
        return ages.cleared(address, version).thenCompose(old -> allowedDetails(address, version, links));
    }

    private CompletableFuture<ModuleApiAnswer> allowedDetails(
            ModuleAddress address, ProviderVersion version, ModuleLinks links) {
        Supplier<CompletableFuture<ModuleApiAnswer>> cached = () -> modules.allowedVersions(address)
                .handle((versions, failure) -> Optional.ofNullable(versions))
                .thenApplyAsync(
                        versions -> fromCache
                                .details(address, version, versions, links)
                                .map(document -> new ModuleApiAnswer(document, ModuleApiAnswer.Source.CACHE)),
                        executor)
                .thenApply(answer -> answer.orElseThrow(() -> new OriginException(
                        OriginException.Reason.NOT_FOUND,
                        "module " + address + " " + version + " is not known to this mirror"
                                + (settings.offline() ? ", which is offline (upstream.offline)" : ""))));
        if (settings.offline()) {
            return cached.get();
        }
        return Futures.withinDeadline(
                        this.details.get(new DetailsKey(address, version)),
                        () -> "the details of module " + address + " " + version,
                        address::hostname,
                        settings.metadataTimeout())
                .thenApplyAsync(
                        pulled -> new ModuleApiAnswer(
                                CatalogFromCache.rendered(rendered(pulled.value(), links)),
                                ModuleApiAnswer.Source.ORIGIN),
                        executor)
                .exceptionallyCompose(failure -> {
                    if (!fallsBack(failure)) {
                        return CompletableFuture.failedFuture(Futures.cause(failure));
                    }
                    return cached.get()
                            .exceptionallyCompose(none -> CompletableFuture.failedFuture(Futures.cause(failure)));
                });
    }

    /** When an origin said {@code version} of {@code address} was published, if one ever said. Blocking. */
    public Optional<Instant> publishedAt(ModuleAddress address, ProviderVersion version) {
        return known.publishedAt(address, version);
    }

    private CompletableFuture<ModuleApiAnswer> listing(
            String hostname, String path, ModuleApiQuery query, ModuleLinks links, Predicate<ModuleFacts> selects) {
        Optional<String> refused = rules.hostRefusal(hostname);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new OriginException(
                    OriginException.Reason.FORBIDDEN,
                    "refused to ask the module registry of " + hostname + ": " + refused.get()));
        }
        Supplier<ModuleApiAnswer> cached = () -> new ModuleApiAnswer(
                fromCache.listing(hostname, path, query, links, selects), ModuleApiAnswer.Source.CACHE);
        if (settings.offline()) {
            return CompletableFuture.supplyAsync(cached, executor);
        }
        ListKey key = new ListKey(hostname, path, query.parameters());
        return Futures.withinDeadline(listings.get(key), key::toString, () -> hostname, settings.metadataTimeout())
                .thenApply(pulled ->
                        new ModuleApiAnswer(rendered(key, query, pulled.value(), links), ModuleApiAnswer.Source.ORIGIN))
                .exceptionallyCompose(failure -> fallback(failure, cached));
    }

    /** The answer {@code answer} from the cache when {@code failure} is the origin's, else the failure. */
    private <T> CompletableFuture<T> fallback(Throwable failure, Supplier<T> answer) {
        if (!fallsBack(failure)) {
            return CompletableFuture.failedFuture(Futures.cause(failure));
        }
        return CompletableFuture.supplyAsync(answer, executor);
    }

    private static RuntimeException unchecked(Throwable failure) {
        return failure instanceof RuntimeException runtime ? runtime : new CompletionException(failure);
    }

    /**
     * Whether the mirror answers from its cache after {@code failure}: any origin failure but a refusal, a failed
     * verification included, and its origin's lane full (it answers slowly or not at all).
     */
    private static boolean fallsBack(Throwable failure) {
        Throwable cause = Futures.cause(failure);
        return cause instanceof VerificationException
                || cause instanceof LaneFullException
                || cause instanceof OriginException origin && origin.reason() != OriginException.Reason.FORBIDDEN;
    }

    private ModuleApiDocuments.Listing pullListing(ListKey key) {
        ModuleApiDocuments.Listing listing = ModuleApiDocuments.listing(
                key.hostname(), origins.of(key.hostname()).api(key.path(), key.parameters(), key.toString()));
        known.remember(
                key.hostname(),
                listing.modules().stream()
                        .filter(this::allowed)
                        .map(ModuleFacts::kept)
                        .toList());
        return listing;
    }

    private ModuleApiDocuments.Details pullDetails(DetailsKey key) {
        ModuleAddress address = key.address();
        String what = key.toString();
        ModuleApiDocuments.Details pulled = ModuleApiDocuments.details(
                        address.hostname(),
                        origins.of(address.hostname())
                                .api(address.registryPath() + "/" + key.version(), Map.of(), what))
                .filter(read -> read.facts().address().equals(address)
                        && read.facts().version().equals(key.version()))
                .orElseThrow(() -> new OriginException(
                        OriginException.Reason.BAD_RESPONSE,
                        what + ": the origin's answer does not describe that module version"));
        known.remember(address.hostname(), List.of(pulled.facts().kept()));
        known.rememberDetails(pulled);
        return pulled;
    }

    private boolean allowed(ModuleFacts facts) {
        return policy.allows(facts.address(), facts.version());
    }

    /** Whether {@code facts} appear in a list answer now: allowed by the policy, not held by the release age. */
    private boolean listed(ModuleFacts facts) {
        return allowed(facts) && ages.offered(facts.address(), facts.version(), facts.publishedAt());
    }

    /** An origin's list answer for the client: denied modules left out, links on the mirror. */
    private RenderedDocument rendered(
            ListKey key, ModuleApiQuery query, ModuleApiDocuments.Listing listing, ModuleLinks links) {
        ObjectNode root = NODES.objectNode();
        ObjectNode meta = root.putObject("meta");
        ModuleApiDocuments.Meta origin = listing.meta();
        origin.limit().ifPresent(limit -> meta.put("limit", limit));
        origin.currentOffset().ifPresent(offset -> meta.put("current_offset", offset));
        origin.nextOffset()
                .ifPresent(next -> meta.put("next_offset", next)
                        .put("next_url", ModuleLinks.page(key.hostname(), key.path(), query.parametersAt(next))));
        origin.prevOffset()
                .ifPresent(previous -> meta.put("prev_offset", previous)
                        .put("prev_url", ModuleLinks.page(key.hostname(), key.path(), query.parametersAt(previous))));
        ArrayNode items = root.putArray("modules");
        listing.modules().stream()
                .filter(this::listed)
                .forEach(facts -> items.add(ModuleApiDocuments.render(facts, links)));
        return CatalogFromCache.rendered(root);
    }

    /**
     * An origin's details answer for the client: its {@code versions} those the policy lets in and the release age
     * does not hold back. Blocking (what the mirror learnt of the module is read).
     */
    private ObjectNode rendered(ModuleApiDocuments.Details pulled, ModuleLinks links) {
        ObjectNode answer = ModuleApiDocuments.render(pulled.facts(), links);
        answer.setAll(pulled.parts().deepCopy());
        ModuleAddress address = pulled.facts().address();
        List<ProviderVersion> versions = pulled.versions().stream()
                .filter(version -> policy.allows(address, version)
                        && ages.offered(address, version, known.publishedAt(address, version)))
                .toList();
        if (!versions.isEmpty()) {
            ArrayNode list = answer.putArray("versions");
            versions.forEach(version -> list.add(version.toString()));
        }
        return answer;
    }

    /** The newest of {@code versions}: the highest release, else the highest pre-release. */
    static Optional<ProviderVersion> newest(List<ProviderVersion> versions) {
        return versions.stream()
                .filter(version -> !version.isPrerelease())
                .max(Comparator.naturalOrder())
                .or(() -> versions.stream().max(Comparator.naturalOrder()));
    }
}
