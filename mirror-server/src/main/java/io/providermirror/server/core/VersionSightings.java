package io.providermirror.server.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.ProviderVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * When the mirror first saw each version in its origin's list ({@code sightings.json} beside the version list):
 * {@code listedSince} is when it first saw the list at all; a version in that first list has no time of its own
 * (it is at least as old as the list), a version that appeared later has the time of the list that first had it;
 * {@code signed} holds when the origin signed a provider release the mirror verified.
 * What the release-age quarantine reads as evidence; kept in the cache, so it survives restarts.
 */
public record VersionSightings(
        Instant listedSince, Map<ProviderVersion, Optional<Instant>> versions, Map<ProviderVersion, Instant> signed) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public VersionSightings {
        versions = java.util.Collections.unmodifiableMap(new TreeMap<>(versions));
        signed = java.util.Collections.unmodifiableMap(new TreeMap<>(signed));
    }

    /** {@code this}, with {@code version}'s origin signature made at {@code at} (a provider release verified). */
    public VersionSightings withSigned(ProviderVersion version, Instant at) {
        Map<ProviderVersion, Instant> more = new TreeMap<>(signed);
        more.put(version, at);
        return new VersionSightings(listedSince, versions, more);
    }

    /** The sightings after the origin listed {@code listed} at {@code now}; {@code earlier} when there were any. */
    public static VersionSightings update(
            Optional<VersionSightings> earlier, Collection<ProviderVersion> listed, Instant now) {
        if (earlier.isEmpty()) {
            Map<ProviderVersion, Optional<Instant>> first = new TreeMap<>();
            listed.forEach(version -> first.put(version, Optional.empty()));
            return new VersionSightings(now, first, Map.of());
        }
        Map<ProviderVersion, Optional<Instant>> versions =
                new TreeMap<>(earlier.get().versions());
        listed.forEach(version -> versions.putIfAbsent(version, Optional.of(now)));
        return new VersionSightings(
                earlier.get().listedSince(), versions, earlier.get().signed());
    }

    /**
     * These sightings and {@code other} (another instance's, stored in the meantime) as one: the earliest evidence
     * wins, so a fleet never moves a first-seen time later. The list was first seen at the earlier of the two times;
     * a version is first seen at the earliest either saw it, where a version of a first list was seen when that list
     * was; one seen by the instance whose first list came later keeps that time as its own. Signature times are the
     * origin's; the earlier is kept.
     */
    public VersionSightings merge(VersionSightings other) {
        Instant since = listedSince.isAfter(other.listedSince) ? other.listedSince : listedSince;
        Map<ProviderVersion, Optional<Instant>> merged = new TreeMap<>();
        for (VersionSightings one : List.of(this, other)) {
            one.versions.forEach((version, seen) -> {
                Instant at = seen.orElse(one.listedSince);
                Optional<Instant> before = merged.get(version);
                Instant earlier = before == null ? null : before.orElse(since);
                if (earlier == null || at.isBefore(earlier)) {
                    merged.put(version, at.equals(since) && seen.isEmpty() ? Optional.empty() : Optional.of(at));
                }
            });
        }
        Map<ProviderVersion, Instant> signedBoth = new TreeMap<>(signed);
        other.signed.forEach((version, at) -> signedBoth.merge(version, at, (a, b) -> a.isBefore(b) ? a : b));
        return new VersionSightings(since, merged, signedBoth);
    }

    /** Whether {@link #update} with {@code listed} would add a version. */
    public boolean lacksAny(Collection<ProviderVersion> listed) {
        return !versions.keySet().containsAll(listed);
    }

    /** When the mirror saw {@code version} appear, if it appeared after the first list. */
    public Optional<Instant> firstSeen(ProviderVersion version) {
        return versions.getOrDefault(version, Optional.empty());
    }

    /**
     * What {@code sightings} and the origin's {@code published} date say of when {@code version} was released. A
     * version the sightings do not have yet is seen now, for the first time; without sightings only the origin's
     * date is known.
     */
    public static ReleaseAge.Evidence evidence(
            Optional<VersionSightings> sightings,
            ProviderVersion version,
            Optional<Instant> published,
            java.time.Clock clock) {
        if (sightings.isEmpty()) {
            return new ReleaseAge.Evidence(published, Optional.empty(), Optional.empty());
        }
        if (published.isEmpty()) {
            published = Optional.ofNullable(sightings.get().signed().get(version));
        }
        if (!sightings.get().versions().containsKey(version)) {
            return new ReleaseAge.Evidence(published, Optional.of(clock.instant()), Optional.empty());
        }
        return new ReleaseAge.Evidence(
                published,
                sightings.get().firstSeen(version),
                Optional.of(sightings.get().listedSince()));
    }

    byte[] encode() {
        ObjectNode root = JSON.createObjectNode();
        root.put("listedSince", listedSince.toString());
        ObjectNode signedNode = root.putObject("signed");
        signed.forEach((version, at) -> signedNode.put(version.canonical(), at.toString()));
        ObjectNode versionsNode = root.putObject("versions");
        versions.forEach((version, seen) -> {
            if (seen.isPresent()) {
                versionsNode.put(version.canonical(), seen.get().toString());
            } else {
                versionsNode.putNull(version.canonical());
            }
        });
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static VersionSightings decode(byte[] content) throws IOException {
        JsonNode root = JSON.readTree(content);
        Instant since = Instant.parse(root.path("listedSince").asText());
        Map<ProviderVersion, Optional<Instant>> versions = new TreeMap<>();
        for (Map.Entry<String, JsonNode> field : root.path("versions").properties()) {
            Optional<ProviderVersion> version = ProviderVersion.parse(field.getKey());
            if (version.isPresent()) {
                versions.put(
                        version.get(),
                        field.getValue().isTextual()
                                ? Optional.of(Instant.parse(field.getValue().textValue()))
                                : Optional.empty());
            }
        }
        Map<ProviderVersion, Instant> signed = new TreeMap<>();
        for (Map.Entry<String, JsonNode> field : root.path("signed").properties()) {
            ProviderVersion.parse(field.getKey())
                    .ifPresent(version ->
                            signed.put(version, Instant.parse(field.getValue().asText())));
        }
        return new VersionSightings(since, versions, signed);
    }
}
