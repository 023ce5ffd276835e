package io.providermirror.server.face.modules;

import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A module's version list with one version for each version the CLI tells apart: the CLI's version matching
 * ignores build metadata, so {@code 1.0.0} and {@code 1.0.0+evil} are one version to it, and a list naming both
 * would let an origin slip a twin beside a pinned version. Of such twins the one without build metadata is listed,
 * else the first in the origin's order; the others are {@code twins}. Pins and archives are kept by the version
 * without build metadata ({@link CacheLayout}), so whichever spelling a client asks for gets the pinned content.
 *
 * @param listed the versions to list, in the origin's order
 * @param twins  the versions left out, each of which differs from a listed one only in build metadata
 */
record DistinctVersions(List<ProviderVersion> listed, List<ProviderVersion> twins) {

    DistinctVersions {
        listed = List.copyOf(listed);
        twins = List.copyOf(twins);
    }

    /** {@code versions}, an origin's list in its order, with its twins taken out. */
    static DistinctVersions of(List<ProviderVersion> versions) {
        Set<ProviderVersion> plain = new HashSet<>();
        for (ProviderVersion version : versions) {
            if (version.withoutBuildMetadata().equals(version)) {
                plain.add(version);
            }
        }
        Set<ProviderVersion> listedOnce = new HashSet<>();
        Set<ProviderVersion> listedWithout = new HashSet<>();
        List<ProviderVersion> listed = new ArrayList<>();
        List<ProviderVersion> twins = new ArrayList<>();
        for (ProviderVersion version : versions) {
            if (listedOnce.contains(version)) {
                continue; // the same version named twice: no twin, listed once
            }
            ProviderVersion one = version.withoutBuildMetadata();
            boolean keep = plain.contains(one) ? one.equals(version) : !listedWithout.contains(one);
            if (keep) {
                listedOnce.add(version);
                listedWithout.add(one);
                listed.add(version);
            } else {
                twins.add(version);
            }
        }
        return new DistinctVersions(listed, twins);
    }
}
