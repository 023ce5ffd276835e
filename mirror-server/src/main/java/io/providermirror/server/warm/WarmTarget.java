package io.providermirror.server.warm;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.List;
import java.util.Set;

/** What warm fills: a running mirror through its URL, or a cache directory directly. */
public interface WarmTarget extends AutoCloseable {

    /** Reports an archive's bytes as they arrive. */
    interface Progress {
        /** The archive's size, or -1 when unknown. */
        void started(long totalBytes);

        void advanced(long bytesSoFar);
    }

    /** Every version the mirror lists for {@code address} (its policy applied). */
    List<ProviderVersion> versions(ProviderAddress address) throws Exception;

    /** The platforms the mirror serves for a version. */
    Set<Platform> platforms(ProviderAddress address, ProviderVersion version) throws Exception;

    /**
     * Makes sure the archive is in the mirror's cache, verified.
     *
     * @return true when it was cached already (nothing was fetched)
     */
    boolean warm(ProviderAddress address, ProviderVersion version, Platform platform, Progress progress)
            throws Exception;

    /** Every version the mirror lists for module {@code address} (its policy applied). */
    List<ProviderVersion> moduleVersions(ModuleAddress address) throws Exception;

    /**
     * Makes sure the module version's archive is in the mirror's cache, fetched and pinned.
     *
     * @return true when it was cached already (nothing was fetched)
     */
    boolean warmModule(ModuleAddress address, ProviderVersion version) throws Exception;

    @Override
    void close();
}
