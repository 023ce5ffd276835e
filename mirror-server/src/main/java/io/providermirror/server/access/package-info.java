/**
 * Access control: bearer tokens for clients, and signed archive URLs that let a token-less CLI download what
 * a version document it was given names.
 */
package io.providermirror.server.access;
