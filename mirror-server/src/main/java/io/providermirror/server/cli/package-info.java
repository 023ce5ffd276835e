/**
 * The command line: {@code serve}, {@code warm}, {@code export} and {@code import} as picocli commands, and
 * the exit codes and messages of start-up failures.
 */
package io.providermirror.server.cli;
