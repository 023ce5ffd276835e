package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** IPv6 addresses that a gateway turns into an IPv4 address are as internal as that IPv4 address. */
final class InternalAddressesTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "::127.0.0.1",
                "::10.0.0.1",
                "::169.254.169.254", // IPv4-compatible
                "::ffff:127.0.0.1",
                "::ffff:7f00:1",
                "0:0:0:0:0:ffff:a9fe:a9fe",
                "::FFFF:192.168.0.1", // IPv4-mapped
                "::ffff:0:10.0.0.1", // IPv4-translated (SIIT)
                "64:ff9b:1::10.0.0.1", // local-use NAT64
                "64:ff9b::127.0.0.1",
                "64:ff9b::a9fe:a9fe",
                "64:ff9b::10.1.2.3", // NAT64
                "2002:7f00:1::",
                "2002:a9fe:a9fe::1",
                "2002:0a00:0001:1234::5", // 6to4
                "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1 (inverted in the last 32 bits)
                "2001:0:4136:e378:8000:63bf:f5ff:fffe", // Teredo, client 10.0.0.1
                "2001:0:0a00:0001:8000:63bf:3fff:fdd2", // Teredo, server 10.0.0.1
                "2001:0:4136:e378:8000:63bf:3f57:fffe", // Teredo, client 192.168.0.1: the second byte inverted too
                "2001:0:4136:e378:8000:63bf:3fff:fff7" // Teredo, client 192.0.0.8: the third byte inverted too
            })
    void ipv6AddressesCarryingAnInternalIpv4AddressAreInternal(String address) throws Exception {
        assertThat(InternalAddresses.isInternal(InetAddress.getByName(address)))
                .as(address)
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "::8.8.8.8",
                "::ffff:8.8.8.8",
                "64:ff9b::8.8.8.8",
                "2002:0808:0808::1",
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                "2606:4700:4700::1111",
                "2001:db8:1::1",
                "64:ff9b:1::8.8.8.8",
                "2001:0:4136:e378:8000:63bf:3fff:00f7", // Teredo, client 192.0.255.8
                "::ff00:10.0.0.1", // bits 80 to 96 neither all zeros nor all ones: no IPv4 address inside
                "::00ff:10.0.0.1"
            })
    void ipv6AddressesCarryingAPublicIpv4AddressArePublic(String address) throws Exception {
        assertThat(InternalAddresses.isInternal(InetAddress.getByName(address)))
                .as(address)
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "127.0.0.1",
                "10.0.0.1",
                "172.16.5.4",
                "192.168.1.1",
                "169.254.169.254",
                "100.64.0.1",
                "0.0.0.0",
                "::1",
                "fe80::1",
                "fd00::1",
                "::ffff:10.0.0.1",
                "224.0.0.1",
                "255.255.255.255",
                "0.1.2.3", // "this network", not only 0.0.0.0
                "100.127.255.255", // the last of carrier-grade NAT
                "192.0.0.8", // IETF protocol assignments
                "240.0.0.1" // reserved
            })
    void internalAddresses(String address) throws Exception {
        assertThat(InternalAddresses.isInternal(java.net.InetAddress.getByName(address)))
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "8.8.8.8",
                "1.1.1.1",
                "140.82.112.3",
                "2606:4700:4700::1111",
                "100.128.0.1",
                "172.32.0.1",
                "100.63.255.255", // just below carrier-grade NAT
                "99.64.0.1",
                "192.0.1.1", // next to the IETF's 192.0.0.0/24
                "192.1.0.1",
                "191.0.0.1",
                "223.255.255.255" // the last unicast /8 below multicast
            })
    void publicAddresses(String address) throws Exception {
        assertThat(InternalAddresses.isInternal(java.net.InetAddress.getByName(address)))
                .isFalse();
    }

    /**
     * The JDK turns a written IPv4-mapped address into an IPv4 address, but a resolver may hand over the IPv6 form
     * (an {@link Inet6Address} of 16 bytes); its last 32 bits decide.
     */
    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "127.0.0.1", "169.254.169.254", "100.64.0.1"})
    void anIpv4MappedAddressInIpv6FormIsAsInternalAsItsIpv4Address(String ipv4) throws Exception {
        assertThat(InternalAddresses.isInternal(mapped(ipv4))).as(ipv4).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "100.128.0.1"})
    void anIpv4MappedAddressInIpv6FormIsAsPublicAsItsIpv4Address(String ipv4) throws Exception {
        assertThat(InternalAddresses.isInternal(mapped(ipv4))).as(ipv4).isFalse();
    }

    private static InetAddress mapped(String ipv4) throws Exception {
        byte[] v4 = InetAddress.getByName(ipv4).getAddress();
        byte[] v6 = new byte[16];
        v6[10] = (byte) 0xff;
        v6[11] = (byte) 0xff;
        System.arraycopy(v4, 0, v6, 12, 4);
        InetAddress address = Inet6Address.getByAddress(null, v6, (NetworkInterface) null);
        assertThat(address).isInstanceOf(Inet6Address.class);
        return address;
    }
}
