package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
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
                "64:ff9b::127.0.0.1",
                "64:ff9b::a9fe:a9fe",
                "64:ff9b::10.1.2.3", // NAT64
                "2002:7f00:1::",
                "2002:a9fe:a9fe::1",
                "2002:0a00:0001:1234::5", // 6to4
                "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1 (inverted in the last 32 bits)
                "2001:0:4136:e378:8000:63bf:f5ff:fffe", // Teredo, client 10.0.0.1
                "2001:0:0a00:0001:8000:63bf:3fff:fdd2" // Teredo, server 10.0.0.1
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
                "2001:db8:1::1"
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
                "255.255.255.255"
            })
    void internalAddresses(String address) throws Exception {
        assertThat(InternalAddresses.isInternal(java.net.InetAddress.getByName(address)))
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "140.82.112.3", "2606:4700:4700::1111", "100.128.0.1", "172.32.0.1"})
    void publicAddresses(String address) throws Exception {
        assertThat(InternalAddresses.isInternal(java.net.InetAddress.getByName(address)))
                .isFalse();
    }
}
