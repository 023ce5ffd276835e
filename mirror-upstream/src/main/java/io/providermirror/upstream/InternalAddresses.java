package io.providermirror.upstream;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * Addresses of the network the mirror runs in rather than of the internet: loopback, link-local (cloud
 * metadata endpoints live there), private IPv4 ranges, carrier-grade NAT, IPv6 unique-local, unspecified and
 * multicast; and IPv6 addresses that carry such an IPv4 address inside them (IPv4-compatible {@code ::a.b.c.d},
 * IPv4-mapped {@code ::ffff:a.b.c.d}, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16} and Teredo
 * {@code 2001::/32}), since a gateway translates those to the IPv4 address. An origin at such an address is
 * contacted only when an operator configured it.
 */
public final class InternalAddresses {

    private InternalAddresses() {}

    /** True when {@code address} is not a public internet address. */
    public static boolean isInternal(InetAddress address) {
        if (address.isLoopbackAddress()
                || address.isLinkLocalAddress()
                || address.isSiteLocalAddress()
                || address.isAnyLocalAddress()
                || address.isMulticastAddress()) {
            return true;
        }
        byte[] bytes = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = bytes[0] & 0xff;
            int second = bytes[1] & 0xff;
            return first == 0 // "this network"
                    || first == 100 && second >= 64 && second <= 127 // carrier-grade NAT, 100.64.0.0/10
                    || first == 192 && second == 0 && (bytes[2] & 0xff) == 0 // IETF protocol assignments
                    || first >= 240; // reserved and broadcast
        }
        // Otherwise IPv6, the only other kind of InetAddress.
        return (bytes[0] & 0xfe) == 0xfc // unique local, fc00::/7
                || embeddedIpv4(bytes).map(InternalAddresses::isInternal).orElse(false);
    }

    /**
     * The IPv4 addresses a gateway would reach for this IPv6 address: the last 32 bits of an address in
     * {@code ::/8} whose bits 80 to 96 are all zeros or all ones (IPv4-compatible {@code ::/96}, IPv4-mapped
     * {@code ::ffff:0:0/96} however written, IPv4-translated {@code ::ffff:0:0:0/96}, NAT64 {@code 64:ff9b::/96} and
     * the local-use {@code 64:ff9b:1::/48} with the IPv4 address last); bits 16 to 48 of 6to4 ({@code 2002::/16});
     * for Teredo ({@code 2001::/32}) the client's address (the last 32 bits inverted), and the server's (bits 32 to
     * 64) is also checked.
     */
    private static java.util.Optional<InetAddress> embeddedIpv4(byte[] v6) {
        if (v6[0] == 0 && (v6[10] == 0 && v6[11] == 0 || v6[10] == (byte) 0xff && v6[11] == (byte) 0xff)) {
            return ipv4(v6[12], v6[13], v6[14], v6[15]);
        }
        if ((v6[0] & 0xff) == 0x20 && (v6[1] & 0xff) == 0x02) {
            return ipv4(v6[2], v6[3], v6[4], v6[5]);
        }
        if ((v6[0] & 0xff) == 0x20 && (v6[1] & 0xff) == 0x01 && v6[2] == 0 && v6[3] == 0) {
            java.util.Optional<InetAddress> server = ipv4(v6[4], v6[5], v6[6], v6[7]);
            if (server.map(InternalAddresses::isInternal).orElse(false)) {
                return server;
            }
            // The last byte's inversion decides nothing: every range above is /24 or wider.
            return ipv4((byte) ~v6[12], (byte) ~v6[13], (byte) ~v6[14], (byte) ~v6[15]);
        }
        return java.util.Optional.empty();
    }

    private static java.util.Optional<InetAddress> ipv4(byte a, byte b, byte c, byte d) {
        try {
            return java.util.Optional.of(InetAddress.getByAddress(new byte[] {a, b, c, d}));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("four bytes are always an IPv4 address", e);
        }
    }
}
