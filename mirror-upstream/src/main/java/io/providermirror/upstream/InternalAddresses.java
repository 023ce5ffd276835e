package io.providermirror.upstream;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Addresses of the network the mirror runs in rather than of the internet: loopback, link-local (cloud
 * metadata endpoints live there), private IPv4 ranges, carrier-grade NAT, IPv6 unique-local, unspecified and
 * multicast. An origin at such an address is contacted only when an operator configured it.
 */
public final class InternalAddresses {

    private InternalAddresses() {
    }

    /** True when {@code address} is not a public internet address. */
    public static boolean isInternal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isLinkLocalAddress() || address.isSiteLocalAddress()
                || address.isAnyLocalAddress() || address.isMulticastAddress()) {
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
        if (address instanceof Inet6Address) {
            return (bytes[0] & 0xfe) == 0xfc; // unique local, fc00::/7
        }
        return false;
    }
}
