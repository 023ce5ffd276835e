package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.ModulePin;

/** A module version the cache holds an archive of, with its pin. */
public record StoredModule(ModuleAddress address, ProviderVersion version, ModulePin pin, long archiveBytes) {}
