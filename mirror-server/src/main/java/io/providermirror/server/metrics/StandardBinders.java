package io.providermirror.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.DiskSpaceMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.nio.file.Path;
import java.util.List;

/**
 * The JVM's and the process's standard meters, and the free space of the file system the cache lives on
 * ({@code disk_free_bytes{volume="cache"}}, which the "cache disk nearly full" alert reads).
 */
public final class StandardBinders {

    private StandardBinders() {}

    /** Binds them all; close the result when the registry is no longer scraped. */
    public static AutoCloseable bind(MeterRegistry registry, Path cacheDirectory) {
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        new DiskSpaceMetrics(cacheDirectory.toFile(), List.of(Tag.of("volume", "cache"))).bindTo(registry);
        return gc;
    }
}
