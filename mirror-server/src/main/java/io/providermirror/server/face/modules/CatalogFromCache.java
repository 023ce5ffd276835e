package io.providermirror.server.face.modules;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.RenderedDocument;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The full module registry API's answers built from what the mirror holds, for when it is offline or the origin
 * does not answer (it failed, or implements only the protocol): the modules it learnt of from the API
 * ({@link KnownModules}) and those whose archives it keeps, each at its newest version the policy lets in (and the
 * release-age quarantine does not hold back), with the fields it knows. A field it cannot know (the download count; a description it never saw) is left out. Blocking.
 */
final class CatalogFromCache {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final KnownModules known;
    private final ModuleMirror modules;
    private final ModulePolicy policy;
    private final ModuleVersionAnswers ages;

    CatalogFromCache(KnownModules known, ModuleMirror modules, ModulePolicy policy, ModuleVersionAnswers ages) {
        this.known = known;
        this.modules = modules;
        this.policy = policy;
        this.ages = ages;
    }

    /**
     * A list answer of {@code hostname}'s modules that {@code selects} (on the facts of each module's newest allowed
     * version), with the query's provider, verified mark, offset and limit applied; paging links for {@code path}.
     */
    RenderedDocument listing(
            String hostname, String path, ModuleApiQuery query, ModuleLinks links, Predicate<ModuleFacts> selects) {
        List<ModuleFacts> matching = new ArrayList<>();
        for (KnownModules.Known module : held(hostname)) {
            Optional<ProviderVersion> newest = ModuleCatalog.newest(allowed(module));
            if (newest.isEmpty()) {
                continue;
            }
            ModuleFacts facts = module.facts(newest.get());
            if (query.provider().map(facts.address().system()::equals).orElse(true)
                    && (query.verified().orElse(false) ? facts.verified().orElse(false) : true)
                    && selects.test(facts)) {
                matching.add(facts);
            }
        }
        matching.sort(Comparator.comparing(facts -> facts.address().toString()));
        int offset = Math.min(query.offset().orElse(0), matching.size());
        int limit = query.pageSize();
        ObjectNode root = NODES.objectNode();
        ObjectNode meta = root.putObject("meta").put("limit", limit).put("current_offset", offset);
        if (offset + limit < matching.size()) {
            meta.put("next_offset", offset + limit);
            meta.put("next_url", ModuleLinks.page(hostname, path, query.parametersAt(offset + limit)));
        }
        if (offset > 0) {
            int previous = Math.max(0, offset - limit);
            meta.put("prev_offset", previous);
            meta.put("prev_url", ModuleLinks.page(hostname, path, query.parametersAt(previous)));
        }
        ArrayNode items = root.putArray("modules");
        matching.subList(offset, Math.min(matching.size(), offset + limit))
                .forEach(facts -> items.add(ModuleApiDocuments.render(facts, links)));
        return rendered(root);
    }

    /**
     * The details of {@code version}, if the mirror knows the version: the details it kept, else the facts it has;
     * its versions field lists {@code listed} (the allowed versions of the cached version list) when known, else the
     * versions it learnt of.
     */
    Optional<RenderedDocument> details(
            ModuleAddress address, ProviderVersion version, Optional<List<ProviderVersion>> listed, ModuleLinks links) {
        Optional<KnownModules.Known> module = held(address);
        List<ProviderVersion> versions =
                listed.orElseGet(() -> module.map(this::allowed).orElse(List.of()));
        Optional<ModuleApiDocuments.Details> kept = known.details(address, version);
        ObjectNode answer;
        if (kept.isPresent()) {
            answer = ModuleApiDocuments.render(kept.get().facts().kept(), links);
            answer.setAll(kept.get().parts());
        } else if (versions.contains(version)
                || module.map(m -> m.versions().containsKey(version)).orElse(false)) {
            answer = ModuleApiDocuments.render(
                    module.map(m -> m.facts(version)).orElseGet(() -> ModuleFacts.bare(address, version)), links);
        } else {
            return Optional.empty();
        }
        if (!versions.isEmpty()) {
            ArrayNode list = answer.putArray("versions");
            versions.forEach(listedVersion -> list.add(listedVersion.toString()));
        }
        return Optional.of(rendered(answer));
    }

    /**
     * The versions of {@code address} the mirror learnt of or keeps archives of, that the policy lets in and the
     * release age does not hold back.
     */
    List<ProviderVersion> knownVersions(ModuleAddress address) {
        return held(address).map(this::allowed).orElse(List.of());
    }

    private List<ProviderVersion> allowed(KnownModules.Known module) {
        return module.versions().keySet().stream()
                .filter(version -> policy.allows(module.address(), version)
                        && ages.offered(
                                module.address(), version, module.versions().getOrDefault(version, Optional.empty())))
                .toList();
    }

    private Optional<KnownModules.Known> held(ModuleAddress address) {
        return held(address.hostname()).stream()
                .filter(module -> module.address().equals(address))
                .findFirst();
    }

    /** What {@link KnownModules} holds of {@code hostname}, with the versions whose archives the cache keeps. */
    private List<KnownModules.Known> held(String hostname) {
        Map<ModuleAddress, KnownModules.Known> held = new LinkedHashMap<>();
        known.of(hostname).forEach(module -> held.put(module.address(), module));
        for (StoredModule stored : modules.storedModules()) {
            if (!stored.address().hostname().equals(hostname)) {
                continue;
            }
            KnownModules.Known before = held.get(stored.address());
            TreeMap<ProviderVersion, Optional<Instant>> versions =
                    new TreeMap<>(before == null ? Map.of() : before.versions());
            versions.putIfAbsent(stored.version(), Optional.empty());
            held.put(
                    stored.address(),
                    before == null
                            ? new KnownModules.Known(
                                    stored.address(), Optional.empty(), Optional.empty(), Optional.empty(), versions)
                            : new KnownModules.Known(
                                    before.address(),
                                    before.owner(),
                                    before.description(),
                                    before.verified(),
                                    versions));
        }
        return List.copyOf(held.values());
    }

    /** Whether {@code facts} match every word of a search string, in the address or the description. */
    static boolean matches(ModuleFacts facts, String q) {
        String text =
                (facts.address().registryPath() + " " + facts.description().orElse("")).toLowerCase(Locale.ROOT);
        for (String word : q.toLowerCase(Locale.ROOT).split("\\s+")) {
            if (!word.isEmpty() && !text.contains(word)) {
                return false;
            }
        }
        return true;
    }

    static RenderedDocument rendered(ObjectNode root) {
        return new RenderedDocument(root.toString().getBytes(StandardCharsets.UTF_8));
    }
}
