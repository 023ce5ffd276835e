/**
 * The product: the pull-through mirror behind a Netty HTTPS front end. The root holds only {@link
 * io.providermirror.server.BuildInfo}; each sub-package has one role (see ARCHITECTURE.md).
 */
package io.providermirror.server;
