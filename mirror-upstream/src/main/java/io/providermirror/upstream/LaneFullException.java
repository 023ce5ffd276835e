package io.providermirror.upstream;

import java.util.concurrent.RejectedExecutionException;

/**
 * A task refused by {@link HostLanes} because as many tasks as a lane may queue wait on its lane already: its origin
 * answers slowly or not at all, or is asked for much at once. The caller answers that the mirror is busy with that
 * origin, and the client tries again later.
 */
public final class LaneFullException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    LaneFullException(String message) {
        super(message);
    }
}
