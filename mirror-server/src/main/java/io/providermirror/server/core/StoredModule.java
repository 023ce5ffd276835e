package io.providermirror.server.core;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;

/** A module version the cache holds an archive of, with its pin. */
public record StoredModule(ModuleAddress address, ProviderVersion version, ModulePin pin, long archiveBytes) {}
