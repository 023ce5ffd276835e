/**
 * The usage inventory: which provider versions and platforms and which module versions clients requested, when
 * first and last, how often and by which client names. Each instance counts in memory and writes its own shard
 * of the cache's documents now and then; readers merge every shard, so a fleet on one bucket has one inventory.
 */
package io.providermirror.server.inventory;
