package io.providermirror.upstream;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value made on first use, exactly once however many threads ask for it at the same time: for what start-up
 * need not pay for because the first answers do not use it (the TLS trust towards origins, the JDK's HTTP client).
 * A maker that throws leaves nothing behind, so the next caller tries again.
 */
public final class Memoized<T> implements Supplier<T> {

    private final Supplier<? extends T> maker;
    /** Null until made; written once, under the lock, and read without it. */
    private volatile T value;

    /** A holder that calls {@code maker} on the first {@link #get()}; it must not return null. */
    public Memoized(Supplier<? extends T> maker) {
        this.maker = Objects.requireNonNull(maker, "maker");
    }

    /** The value, made now by the calling thread if no one made it yet; other callers wait for it meanwhile. */
    @Override
    public T get() {
        T made = value;
        if (made != null) {
            return made;
        }
        synchronized (this) {
            if (value == null) {
                value = Objects.requireNonNull(maker.get(), "the maker returned null");
            }
            return value;
        }
    }

    /** True once the value has been made. */
    public boolean isMade() {
        return value != null;
    }
}
