package io.providermirror.server.tlog;

import java.io.IOException;
import java.util.Optional;

/** Where a log's resources are read from: the cache that keeps it, or a mirror that serves it. */
public interface LogSource {

    /** The signed checkpoint, if the log has one. */
    Optional<byte[]> checkpoint() throws IOException;

    /** A hash tile or entry bundle, if present. */
    Optional<byte[]> tile(TileName name) throws IOException;
}
