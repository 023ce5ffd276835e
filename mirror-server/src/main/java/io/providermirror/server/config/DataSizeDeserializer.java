package io.providermirror.server.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;

/** Reads {@link DataSize} values from numbers or text such as {@code 50GiB}. */
final class DataSizeDeserializer extends StdScalarDeserializer<DataSize> {

    private static final long serialVersionUID = 1L;

    DataSizeDeserializer() {
        super(DataSize.class);
    }

    @Override
    public DataSize deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        String text = parser.getValueAsString();
        if (text == null) {
            return (DataSize) context.handleUnexpectedToken(DataSize.class, parser);
        }
        java.util.Optional<DataSize> size = DataSize.parse(text);
        if (size.isEmpty()) {
            throw context.weirdStringException(
                    text, DataSize.class, "expected a size such as 50GiB, 500MB or a number of bytes");
        }
        return size.get();
    }
}
