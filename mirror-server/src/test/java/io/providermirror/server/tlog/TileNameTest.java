package io.providermirror.server.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Tile paths as c2sp.org/tlog-tiles spells them, each with exactly one spelling. */
final class TileNameTest {

    @Test
    void pathsAreTheSpecificationsPaths() {
        assertThat(new TileName(0, 1234067, 256).path()).isEqualTo("tile/0/x001/x234/067");
        assertThat(new TileName(2, 0, 1).path()).isEqualTo("tile/2/000.p/1");
        assertThat(new TileName(TileName.ENTRIES, 1000, 17).path()).isEqualTo("tile/entries/x001/000.p/17");
        assertThat(new TileName(1, 5, 256).path()).isEqualTo("tile/1/005");
    }

    @Test
    void parsingReadsEveryPathBack() {
        for (TileName name : new TileName[] {
            new TileName(0, 1234067, 256), new TileName(63, 0, 255), new TileName(TileName.ENTRIES, 999_999_999L, 3)
        }) {
            assertThat(TileName.parse(name.path())).contains(name);
        }
    }

    @Test
    void otherSpellingsNameNothing() {
        for (String path : new String[] {
            "tile/0/1", "tile/0/x000/001", "tile/00/001", "tile/64/000", "tile/0/001.p/0", "tile/0/001.p/256",
            "tile/0/001.p/07", "tile/0/001/", "tile/entries/x1/000", "tile/0/001.p", "tiles/0/001", "tile/-1/000",
            "tile/0/x999/x999/x999/x999/x999/x999/x999/999"
        }) {
            assertThat(TileName.parse(path)).as(path).isEqualTo(Optional.empty());
        }
    }
}
