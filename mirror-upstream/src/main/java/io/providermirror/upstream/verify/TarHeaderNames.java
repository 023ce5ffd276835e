package io.providermirror.upstream.verify;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * A tar read as commons-compress reads it, keeping every name an extended header gave as that header gave it: a PAX
 * {@code path} record (of an entry's header, or of a global header that applies to all entries after it) and a GNU
 * long name ({@code ././@LongLink}). commons-compress takes the leading {@code /} off these names before an entry
 * shows them (and on Windows a drive letter), so a check of {@link TarArchiveEntry#getName()} alone would let
 * {@code path=/etc/cron.d/x} through; a ustar header's own name field it keeps as written.
 *
 * <p>Both headers are read through this stream's {@link #read(byte[], int, int)} (and {@link #getLongNameData()})
 * while the header is the current entry; that is where the bytes are seen. A PAX header whose records do not parse
 * is named as such, so no name in it goes unchecked.
 */
final class TarHeaderNames extends TarArchiveInputStream {

    /** The largest extended header kept to read: far more than any name (PATH_MAX is 4096) and its neighbours. */
    static final int MAX_HEADER = 1 << 20;

    /** The PAX headers read since the last {@link #takeNames()}, one after another: records delimit themselves. */
    private final ByteArrayOutputStream paxHeaders = new ByteArrayOutputStream();

    private final List<String> names = new ArrayList<>();

    TarHeaderNames(InputStream tar) {
        super(tar);
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int read = super.read(buffer, offset, length);
        TarArchiveEntry current = getCurrentEntry();
        if (read > 0 && current != null && (current.isPaxHeader() || current.isGlobalPaxHeader())) {
            if (paxHeaders.size() + read > MAX_HEADER) {
                throw new IOException("PAX extended headers larger than " + MAX_HEADER + " bytes for one entry");
            }
            paxHeaders.write(buffer, offset, read);
        }
        return read;
    }

    @Override
    protected byte[] getLongNameData() throws IOException {
        // Read before: reading the long name moves on to the entry it names.
        boolean name = getCurrentEntry().isGNULongNameEntry();
        byte[] data = super.getLongNameData();
        if (data != null && name) {
            names.add(new String(data, StandardCharsets.UTF_8));
        }
        return data;
    }

    /**
     * The names the extended headers read since the last call gave, as written: call it after each
     * {@link #getNextEntry()}, whose own headers it then holds (a global header's name too, once).
     *
     * @throws IOException when a PAX header's records cannot be read
     */
    List<String> takeNames() throws IOException {
        names.addAll(paths(paxHeaders.toByteArray()));
        paxHeaders.reset();
        List<String> taken = List.copyOf(names);
        names.clear();
        return taken;
    }

    /**
     * The {@code path} values of PAX records ({@code "<length> <key>=<value>\n"}, the length counting the whole
     * record in bytes); newlines between records are passed over as commons-compress passes them over.
     */
    static List<String> paths(byte[] header) throws IOException {
        List<String> paths = new ArrayList<>();
        int at = 0;
        while (at < header.length) {
            if (header[at] == '\n') {
                at++;
                continue;
            }
            int space = at;
            long length = 0;
            while (space < header.length && header[space] >= '0' && header[space] <= '9' && length <= header.length) {
                length = length * 10 + (header[space++] - '0');
            }
            if (space == at || space >= header.length || header[space] != ' ' || length > header.length - at) {
                throw new IOException("a PAX extended header whose records cannot be read");
            }
            int end = at + (int) length;
            int equals = space + 1;
            while (equals < end && header[equals] != '=') {
                equals++;
            }
            if (equals >= end || header[end - 1] != '\n') {
                throw new IOException("a PAX extended header whose records cannot be read");
            }
            String key = new String(header, space + 1, equals - space - 1, StandardCharsets.UTF_8);
            if (key.equals("path")) {
                paths.add(new String(header, equals + 1, end - 1 - (equals + 1), StandardCharsets.UTF_8));
            }
            at = end;
        }
        return paths;
    }
}
