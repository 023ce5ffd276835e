package io.providermirror.server.tls;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraints;

/**
 * The DNS names and IP addresses a generated certificate is made for, and the name constraints that limit the
 * generated CA to exactly them: each DNS name is permitted and its subdomains excluded (Go's TLS stack, which the
 * CLI uses, reads a leading dot as "subdomains only"), each address is permitted as a single-address subtree in
 * the form Go expects (address and mask: 8 bytes for IPv4, 32 for IPv6). Only these two kinds are constrained:
 * Go refuses a certificate whose critical name constraints hold a kind it does not handle (directory names).
 */
public record CertificateNames(Set<String> dnsNames, Set<InetAddress> addresses) {

    public CertificateNames {
        dnsNames = Set.copyOf(new LinkedHashSet<>(dnsNames));
        addresses = Set.copyOf(new LinkedHashSet<>(addresses));
    }

    /**
     * The names in {@code names}, each a DNS name or an IP literal (as {@link
     * io.providermirror.server.config.GeneratedTlsConfig} accepts them); IP literals are never looked up.
     */
    public static CertificateNames of(Collection<String> names) {
        Set<String> dns = new LinkedHashSet<>();
        Set<InetAddress> addresses = new LinkedHashSet<>();
        for (String name : names) {
            Optional<InetAddress> address = address(name);
            if (address.isPresent()) {
                addresses.add(address.get());
            } else {
                dns.add(name.toLowerCase(Locale.ROOT));
            }
        }
        return new CertificateNames(dns, addresses);
    }

    /** {@code name} as an address when it is an IP literal (a dotted quad, or anything with a colon). */
    static Optional<InetAddress> address(String name) {
        if (!name.matches("[0-9a-fA-F]*:[0-9a-fA-F:.]*") && !name.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(name)); // a literal: no DNS lookup
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /** True when every name of {@code other} is one of these. */
    public boolean containsAll(CertificateNames other) {
        return dnsNames.containsAll(other.dnsNames) && addresses.containsAll(other.addresses);
    }

    /** These names less those of {@code other}. */
    public CertificateNames without(CertificateNames other) {
        Set<String> dns = new LinkedHashSet<>(dnsNames);
        dns.removeAll(other.dnsNames);
        Set<InetAddress> ips = new LinkedHashSet<>(addresses);
        ips.removeAll(other.addresses);
        return new CertificateNames(dns, ips);
    }

    /** True when there are no names. */
    public boolean isEmpty() {
        return dnsNames.isEmpty() && addresses.isEmpty();
    }

    /** The names for people: DNS names sorted, then addresses as the JDK prints them. */
    public List<String> display() {
        List<String> display = new ArrayList<>(dnsNames.stream().sorted().toList());
        addresses.stream().map(InetAddress::getHostAddress).sorted().forEach(display::add);
        return display;
    }

    @Override
    public String toString() {
        return String.join(", ", display());
    }

    /** The subject alternative names of a server certificate for these names. */
    GeneralNames subjectAlternativeNames() {
        List<GeneralName> names = new ArrayList<>();
        dnsNames.stream().sorted().forEach(dns -> names.add(new GeneralName(GeneralName.dNSName, dns)));
        for (InetAddress address : addresses) {
            names.add(new GeneralName(GeneralName.iPAddress, address.getHostAddress()));
        }
        return new GeneralNames(names.toArray(GeneralName[]::new));
    }

    /** Name constraints that permit exactly these names and addresses, and nothing else of either kind. */
    NameConstraints constraints() {
        List<GeneralSubtree> permitted = new ArrayList<>();
        List<GeneralSubtree> excluded = new ArrayList<>();
        dnsNames.stream().sorted().forEach(dns -> {
            permitted.add(new GeneralSubtree(new GeneralName(GeneralName.dNSName, dns)));
            excluded.add(new GeneralSubtree(new GeneralName(GeneralName.dNSName, "." + dns)));
        });
        for (InetAddress address : addresses) {
            int bits = address.getAddress().length * 8;
            permitted.add(
                    new GeneralSubtree(new GeneralName(GeneralName.iPAddress, address.getHostAddress() + "/" + bits)));
        }
        return new NameConstraints(
                permitted.toArray(GeneralSubtree[]::new),
                excluded.isEmpty() ? null : excluded.toArray(GeneralSubtree[]::new));
    }

    /**
     * The names a CA may sign for, read from its name constraints when they are critical and made as {@link
     * #constraints()} makes them; empty for a CA without them (one that can sign for any site).
     */
    public static Optional<CertificateNames> permittedBy(X509Certificate ca) {
        byte[] extension = ca.getExtensionValue(Extension.nameConstraints.getId());
        if (extension == null || !ca.getCriticalExtensionOIDs().contains(Extension.nameConstraints.getId())) {
            return Optional.empty();
        }
        NameConstraints constraints;
        try {
            constraints = NameConstraints.getInstance(
                    ASN1OctetString.getInstance(extension).getOctets());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        GeneralSubtree[] permitted = constraints.getPermittedSubtrees();
        if (permitted == null || permitted.length == 0) {
            return Optional.empty();
        }
        Set<String> dns = new LinkedHashSet<>();
        Set<InetAddress> addresses = new LinkedHashSet<>();
        for (GeneralSubtree subtree : permitted) {
            GeneralName name = subtree.getBase();
            if (name.getTagNo() == GeneralName.dNSName) {
                dns.add(name.getName().toString().toLowerCase(Locale.ROOT));
            } else if (name.getTagNo() == GeneralName.iPAddress) {
                byte[] addressAndMask =
                        ASN1OctetString.getInstance(name.getName()).getOctets();
                byte[] address = Arrays.copyOf(addressAndMask, addressAndMask.length / 2);
                byte[] mask = Arrays.copyOfRange(addressAndMask, addressAndMask.length / 2, addressAndMask.length);
                if (!isSingleAddress(mask)) {
                    return Optional.empty(); // a range: not a CA this mirror made
                }
                try {
                    addresses.add(InetAddress.getByAddress(address));
                } catch (UnknownHostException e) {
                    return Optional.empty();
                }
            } else {
                return Optional.empty();
            }
        }
        // Every permitted DNS name must have its subdomains excluded, or the CA signs for more than it names.
        Set<String> excluded = new LinkedHashSet<>();
        if (constraints.getExcludedSubtrees() != null) {
            for (GeneralSubtree subtree : constraints.getExcludedSubtrees()) {
                if (subtree.getBase().getTagNo() == GeneralName.dNSName) {
                    excluded.add(subtree.getBase().getName().toString().toLowerCase(Locale.ROOT));
                }
            }
        }
        for (String name : dns) {
            if (!excluded.contains("." + name)) {
                return Optional.empty();
            }
        }
        return Optional.of(new CertificateNames(dns, addresses));
    }

    private static boolean isSingleAddress(byte[] mask) {
        for (byte b : mask) {
            if (b != (byte) 0xff) {
                return false;
            }
        }
        return mask.length == 4 || mask.length == 16;
    }

    /** The names a certificate is made for: its DNS and IP subject alternative names. */
    static CertificateNames of(X509Certificate certificate) throws IOException {
        List<String> names = new ArrayList<>();
        try {
            if (certificate.getSubjectAlternativeNames() != null) {
                for (List<?> name : certificate.getSubjectAlternativeNames()) {
                    int type = (Integer) name.get(0);
                    if (type == GeneralName.dNSName || type == GeneralName.iPAddress) {
                        names.add(String.valueOf(name.get(1)));
                    }
                }
            }
        } catch (java.security.cert.CertificateParsingException e) {
            throw new IOException("cannot read the names of " + certificate.getSubjectX500Principal(), e);
        }
        return of(names);
    }
}
