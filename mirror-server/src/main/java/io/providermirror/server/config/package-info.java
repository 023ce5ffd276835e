/**
 * Configuration: the YAML file, environment overrides and their validation into immutable records, with
 * errors that name the key, the path and the reason.
 */
package io.providermirror.server.config;
