use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn every_refused_range_of_the_table_is_refused() {
    let guard = AddressGuard::new();
    let rows = [
        ("0.0.0.0", "an unspecified address"),
        ("0.1.2.3", "an unspecified address"),
        ("10.0.0.1", "a private address"),
        ("10.255.255.255", "a private address"),
        ("172.16.0.1", "a private address"),
        ("172.31.255.254", "a private address"),
        ("192.168.1.1", "a private address"),
        ("100.64.0.1", "a shared (CGNAT) address"),
        ("100.127.255.254", "a shared (CGNAT) address"),
        ("169.254.0.1", "a link-local address"),
        ("169.254.169.254", "the cloud metadata address"),
        ("100.100.100.200", "the cloud metadata address"),
        ("224.0.0.1", "a multicast address"),
        ("239.255.255.250", "a multicast address"),
        ("255.255.255.255", "the broadcast address"),
        ("240.0.0.1", "a reserved address"),
        ("::", "an unspecified address"),
        ("fc00::1", "a unique-local address"),
        ("fd12:3456::1", "a unique-local address"),
        ("fd00:ec2::254", "the cloud metadata address"),
        ("fe80::1", "a link-local address"),
        ("fec0::1", "a site-local address"),
        ("ff02::1", "a multicast address"),
        // IPv4 inside IPv6 is judged as IPv4.
        ("::ffff:10.0.0.1", "a private address"),
        ("::ffff:169.254.169.254", "the cloud metadata address"),
        ("::192.168.0.1", "a private address"),
        ("64:ff9b::a9fe:a9fe", "the cloud metadata address"),
    ];
    for (address, what) in rows {
        let refused = guard.check(ip(address)).expect_err(address);
        assert_eq!(refused.what, what, "{address}");
        assert_eq!(refused.address(), ip(address));
    }
}

#[test]
fn loopback_and_public_addresses_pass() {
    let guard = AddressGuard::new();
    for address in [
        "127.0.0.1",
        "127.8.9.10",
        "::1",
        "::ffff:127.0.0.1",
        "93.184.215.14",
        "172.32.0.1",
        "100.128.0.1",
        "192.169.0.1",
        "2606:4700::1111",
        "64:ff9b::5db8:d70e",
    ] {
        assert!(guard.check(ip(address)).is_ok(), "{address}");
    }
}

#[test]
fn a_host_widens_and_narrows_it() {
    let guard = AddressGuard::new()
        .allow("10.20.0.0/16".parse().unwrap())
        .deny("10.20.9.0/24".parse().unwrap())
        .deny("::1/128".parse().unwrap());
    assert!(guard.check(ip("10.20.1.1")).is_ok());
    assert!(guard.check(ip("::ffff:10.20.1.1")).is_ok());
    let refused = guard.check(ip("10.20.9.1")).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "10.20.9.1 is in a range this host refuses (10.20.9.0/24)"
    );
    assert!(guard.check(ip("10.30.0.1")).is_err());
    assert!(guard.check(ip("::1")).is_err());
    assert!(guard.check(ip("127.0.0.1")).is_ok());

    let open = AddressGuard::allow_all().deny("127.0.0.0/8".parse().unwrap());
    assert!(open.check(ip("10.0.0.1")).is_ok());
    assert!(open.check(ip("169.254.169.254")).is_ok());
    assert!(open.check(ip("127.0.0.1")).is_err());
}

/// The first and the last address of `range`.
fn ends(range: IpNet) -> [IpAddr; 2] {
    [range.network(), range.broadcast()]
}

#[test]
fn each_row_of_the_table_is_named_and_refused_by_its_own_name() {
    let ranges: Vec<IpNet> = TABLE.iter().map(|row| row.0.parse().unwrap()).collect();
    for (i, (text, what, source)) in TABLE.iter().enumerate() {
        let range = ranges[i];
        assert_eq!(range.to_string(), *text, "{text} is written as its network");
        assert!(
            ["a ", "an ", "the "].iter().any(|a| what.starts_with(a)) && what.len() > 12,
            "{text} is named: {what:?}"
        );
        assert!(
            source.starts_with("RFC ") || *what == METADATA,
            "{text} names the RFC that defines it: {source:?}"
        );
        // Its ends, but for one that a more specific row before it holds
        // (`255.255.255.255` in `240.0.0.0/4`).
        let own: Vec<IpAddr> = ends(range)
            .into_iter()
            .filter(|address| !ranges[..i].iter().any(|r| r.contains(address)))
            .collect();
        assert!(!own.is_empty(), "{text} has an address of its own");
        for address in own {
            let refused = AddressGuard::new().check(address).expect_err(text);
            assert_eq!(refused.range(), range, "{address} is named by {text}");
            assert_eq!(refused.what, *what, "{address}");
            assert_eq!(refused.to_string(), format!("{address} is {what} ({text})"));
        }
    }
    let table: Vec<_> = AddressGuard::table().collect();
    assert_eq!(table.len(), TABLE.len());
    for ((range, what), (text, row_what, _)) in table.iter().zip(TABLE) {
        assert_eq!(range.to_string(), *text);
        assert_eq!(what, row_what);
    }
}

/// How the guard treats a block of the IANA special-purpose registries.
#[derive(Clone, Copy, Debug)]
enum Verdict {
    /// Every address of it is refused.
    Refused,
    /// Allowed: this machine.
    Loopback,
    /// It carries an IPv4 address, which is judged: the two addresses
    /// carry `10.0.0.1` and `93.184.215.14`.
    Carrier(&'static str, &'static str),
}

/// Every block of the IANA IPv4 and IPv6 Special-Purpose Address
/// Registries, with its name and RFC as the registries give them.
const REGISTRIES: &[(&str, &str, &str, Verdict)] = {
    use Verdict::*;
    &[
        ("0.0.0.0/8", "This network", "RFC 791", Refused),
        (
            "0.0.0.0/32",
            "This host on this network",
            "RFC 1122",
            Refused,
        ),
        ("10.0.0.0/8", "Private-Use", "RFC 1918", Refused),
        ("100.64.0.0/10", "Shared Address Space", "RFC 6598", Refused),
        ("127.0.0.0/8", "Loopback", "RFC 1122", Loopback),
        ("169.254.0.0/16", "Link Local", "RFC 3927", Refused),
        ("172.16.0.0/12", "Private-Use", "RFC 1918", Refused),
        (
            "192.0.0.0/24",
            "IETF Protocol Assignments",
            "RFC 6890",
            Refused,
        ),
        (
            "192.0.0.0/29",
            "IPv4 Service Continuity Prefix",
            "RFC 7335",
            Refused,
        ),
        ("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", Refused),
        (
            "192.0.0.9/32",
            "Port Control Protocol Anycast",
            "RFC 7723",
            Refused,
        ),
        (
            "192.0.0.10/32",
            "Traversal Using Relays around NAT Anycast",
            "RFC 8155",
            Refused,
        ),
        (
            "192.0.0.170/32",
            "NAT64/DNS64 Discovery",
            "RFC 8880",
            Refused,
        ),
        (
            "192.0.0.171/32",
            "NAT64/DNS64 Discovery",
            "RFC 8880",
            Refused,
        ),
        (
            "192.0.2.0/24",
            "Documentation (TEST-NET-1)",
            "RFC 5737",
            Refused,
        ),
        ("192.31.196.0/24", "AS112-v4", "RFC 7535", Refused),
        ("192.52.193.0/24", "AMT", "RFC 7450", Refused),
        (
            "192.88.99.0/24",
            "Deprecated (6to4 Relay Anycast)",
            "RFC 7526",
            Refused,
        ),
        (
            "192.88.99.2/32",
            "6a44-relay anycast address",
            "RFC 6751",
            Refused,
        ),
        ("192.168.0.0/16", "Private-Use", "RFC 1918", Refused),
        ("198.18.0.0/15", "Benchmarking", "RFC 2544", Refused),
        (
            "198.51.100.0/24",
            "Documentation (TEST-NET-2)",
            "RFC 5737",
            Refused,
        ),
        (
            "203.0.113.0/24",
            "Documentation (TEST-NET-3)",
            "RFC 5737",
            Refused,
        ),
        ("240.0.0.0/4", "Reserved", "RFC 1112", Refused),
        (
            "255.255.255.255/32",
            "Limited Broadcast",
            "RFC 8190",
            Refused,
        ),
        ("::1/128", "Loopback Address", "RFC 4291", Loopback),
        ("::/128", "Unspecified Address", "RFC 4291", Refused),
        (
            "::ffff:0:0/96",
            "IPv4-mapped Address",
            "RFC 4291",
            Carrier("::ffff:a00:1", "::ffff:5db8:d70e"),
        ),
        (
            "64:ff9b::/96",
            "IPv4-IPv6 Translat.",
            "RFC 6052",
            Carrier("64:ff9b::a00:1", "64:ff9b::5db8:d70e"),
        ),
        (
            "64:ff9b:1::/48",
            "IPv4-IPv6 Translat.",
            "RFC 8215",
            Carrier("64:ff9b:1:ffff::a00:1", "64:ff9b:1::5db8:d70e"),
        ),
        (
            "100::/64",
            "Discard-Only Address Block",
            "RFC 6666",
            Refused,
        ),
        (
            "2001::/23",
            "IETF Protocol Assignments",
            "RFC 2928",
            Refused,
        ),
        ("2001::/32", "TEREDO", "RFC 4380", Refused),
        (
            "2001:1::1/128",
            "Port Control Protocol Anycast",
            "RFC 7723",
            Refused,
        ),
        (
            "2001:1::2/128",
            "Traversal Using Relays around NAT Anycast",
            "RFC 8155",
            Refused,
        ),
        (
            "2001:1::3/128",
            "DNS-SD Service Registration Protocol Anycast",
            "RFC 9665",
            Refused,
        ),
        ("2001:2::/48", "Benchmarking", "RFC 5180", Refused),
        ("2001:3::/32", "AMT", "RFC 7450", Refused),
        ("2001:4:112::/48", "AS112-v6", "RFC 7535", Refused),
        (
            "2001:10::/28",
            "Deprecated (previously ORCHID)",
            "RFC 4843",
            Refused,
        ),
        ("2001:20::/28", "ORCHIDv2", "RFC 7343", Refused),
        (
            "2001:30::/28",
            "Drone Remote ID Protocol Entity Tags (DETs) Prefix",
            "RFC 9374",
            Refused,
        ),
        ("2001:db8::/32", "Documentation", "RFC 3849", Refused),
        (
            "2002::/16",
            "6to4",
            "RFC 3056",
            Carrier("2002:a00:1::1", "2002:5db8:d70e::1"),
        ),
        (
            "2620:4f:8000::/48",
            "Direct Delegation AS112 Service",
            "RFC 7534",
            Refused,
        ),
        ("3fff::/20", "Documentation", "RFC 9637", Refused),
        (
            "5f00::/16",
            "Segment Routing (SRv6) SIDs",
            "RFC 9602",
            Refused,
        ),
        ("fc00::/7", "Unique-Local", "RFC 4193", Refused),
        ("fe80::/10", "Link-Local Unicast", "RFC 4291", Refused),
    ]
};

#[test]
fn every_block_of_both_iana_special_purpose_registries_is_judged() {
    let guard = AddressGuard::new();
    for (text, name, rfc, verdict) in REGISTRIES {
        let range: IpNet = text.parse().unwrap_or_else(|_| panic!("{text} parses"));
        let row = format!("{text} ({name}, {rfc})");
        match verdict {
            Verdict::Refused => {
                for address in ends(range) {
                    let refused = guard.check(address).expect_err(&row);
                    assert!(refused.range().contains(&address), "{row}: {refused}");
                }
            }
            Verdict::Loopback => {
                for address in ends(range) {
                    assert!(guard.check(address).is_ok(), "{row}: {address}");
                }
            }
            Verdict::Carrier(private, public) => {
                for address in [private, public] {
                    assert!(range.contains(&ip(address)), "{row}: {address}");
                }
                let refused = guard.check(ip(private)).expect_err(&row);
                assert_eq!(refused.what, "a private address", "{row}");
                assert!(guard.check(ip(public)).is_ok(), "{row}: {public}");
            }
        }
    }
}

#[test]
fn teredo_benchmarking_discard_and_siit_addresses_are_refused() {
    let guard = AddressGuard::new();
    let rows = [
        ("2001::1", "a Teredo tunnel address", "2001::/32"),
        (
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "a Teredo tunnel address",
            "2001::/32",
        ),
        ("2001:2::1", "a benchmarking address", "2001:2::/48"),
        ("2001:2:0:ffff::1", "a benchmarking address", "2001:2::/48"),
        ("100::1", "a discard-only address", "100::/64"),
        (
            "2001:1ff::1",
            "an IETF protocol assignment address",
            "2001::/23",
        ),
        // SIIT: the IPv4 address inside is judged.
        ("::ffff:0:a00:1", "a private address", "10.0.0.0/8"),
        ("::ffff:0:a9fe:a9fe", METADATA, "169.254.169.254/32"),
        ("::ffff:0:0:0", "an unspecified address", "0.0.0.0/8"),
    ];
    for (address, what, range) in rows {
        let refused = guard.check(ip(address)).expect_err(address);
        assert_eq!(refused.what, what, "{address}");
        assert_eq!(
            refused.range(),
            range.parse::<IpNet>().unwrap(),
            "{address}"
        );
    }
    assert_eq!(
        embedded_v4(ip("::ffff:0:c0a8:101")),
        Some(Ipv4Addr::new(192, 168, 1, 1))
    );
    // Their neighbours, and SIIT with a public or loopback address inside, pass.
    for address in [
        "::ffff:0:5db8:d70e",
        "::ffff:0:7f00:1",
        "2001:200::1",
        "100:0:0:1::1",
        "2001:db9::1",
    ] {
        assert!(guard.check(ip(address)).is_ok(), "{address}");
    }
}

#[test]
fn no_row_of_the_table_hides_a_later_one() {
    let rows: Vec<_> = AddressGuard::table().collect();
    for (i, (earlier, _)) in rows.iter().enumerate() {
        for (later, _) in &rows[i + 1..] {
            assert!(!earlier.contains(later), "{earlier} comes before {later}");
        }
    }
}

#[test]
fn benchmarking_protocol_and_documentation_ranges_are_refused() {
    let guard = AddressGuard::new();
    let rows = [
        ("198.18.0.1", "a benchmarking address", "198.18.0.0/15"),
        ("198.19.255.254", "a benchmarking address", "198.18.0.0/15"),
        (
            "192.0.0.8",
            "an IETF protocol assignment address",
            "192.0.0.0/24",
        ),
        ("192.0.2.1", "a documentation address", "192.0.2.0/24"),
        ("198.51.100.7", "a documentation address", "198.51.100.0/24"),
        ("203.0.113.200", "a documentation address", "203.0.113.0/24"),
        ("2001:db8::1", "a documentation address", "2001:db8::/32"),
        (
            "2001:db8:ffff::1",
            "a documentation address",
            "2001:db8::/32",
        ),
        ("168.63.129.16", METADATA, "168.63.129.16/32"),
        (
            "::ffff:198.18.0.1",
            "a benchmarking address",
            "198.18.0.0/15",
        ),
        ("::ffff:168.63.129.16", METADATA, "168.63.129.16/32"),
    ];
    for (address, what, range) in rows {
        let refused = guard.check(ip(address)).expect_err(address);
        assert_eq!(refused.what, what, "{address}");
        assert_eq!(refused.range(), range.parse::<IpNet>().unwrap());
    }
    // Their neighbours are public.
    for address in [
        "198.17.255.255",
        "198.20.0.1",
        "192.0.1.1",
        "192.0.3.1",
        "198.51.101.1",
        "203.0.114.1",
        "2001:db9::1",
        "168.63.129.17",
    ] {
        assert!(guard.check(ip(address)).is_ok(), "{address}");
    }
}

#[test]
fn six_to_four_and_local_use_nat64_are_judged_by_their_ipv4_address() {
    assert_eq!(
        embedded_v4(ip("2002:a9fe:a9fe::1")),
        Some(Ipv4Addr::new(169, 254, 169, 254))
    );
    assert_eq!(
        embedded_v4(ip("64:ff9b:1::a00:1")),
        Some(Ipv4Addr::new(10, 0, 0, 1))
    );
    let guard = AddressGuard::new();
    let rows = [
        ("2002:a9fe:a9fe::1", METADATA),
        ("2002:a9fe:a9fe:1:2:3:4:5", METADATA),
        ("2002:a00:1::", "a private address"),
        ("2002:c0a8:101::1", "a private address"),
        ("2002:a9fe:1::1", "a link-local address"),
        ("64:ff9b:1::a9fe:a9fe", METADATA),
        ("64:ff9b:1:ffff::c0a8:101", "a private address"),
        ("64:ff9b:1::6440:1", "a shared (CGNAT) address"),
    ];
    for (address, what) in rows {
        let refused = guard.check(ip(address)).expect_err(address);
        assert_eq!(refused.what, what, "{address}");
        assert_eq!(refused.address(), ip(address));
    }
    for address in [
        "2002:5db8:d70e::1",
        "64:ff9b:1::5db8:d70e",
        "2002:7f00:1::1",
    ] {
        assert!(guard.check(ip(address)).is_ok(), "{address}");
    }
    // Allowed and denied ranges see the IPv4 address too.
    let host = AddressGuard::new()
        .allow("10.20.0.0/16".parse().unwrap())
        .deny("127.0.0.0/8".parse().unwrap());
    assert!(host.check(ip("2002:a14:301::1")).is_ok());
    assert!(host.check(ip("64:ff9b:1::a14:301")).is_ok());
    assert!(host.check(ip("2002:7f00:1::1")).is_err());
    assert!(host.check(ip("64:ff9b:1::7f00:1")).is_err());
}

#[test]
fn a_broader_allowed_range_leaves_the_metadata_addresses_refused() {
    let unique_local = AddressGuard::new().allow("fd00::/8".parse().unwrap());
    assert!(unique_local.check(ip("fd00::1")).is_ok());
    let refused = unique_local.check(ip("fd00:ec2::254")).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "fd00:ec2::254 is the cloud metadata address (fd00:ec2::254/128)"
    );

    let link_local = AddressGuard::new().allow("169.254.0.0/16".parse().unwrap());
    assert!(link_local.check(ip("169.254.1.2")).is_ok());
    assert!(link_local.check(ip("::ffff:169.254.1.2")).is_ok());
    for address in [
        "169.254.169.254",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",
        "2002:a9fe:a9fe::1",
    ] {
        let refused = link_local.check(ip(address)).expect_err(address);
        assert_eq!(refused.what, METADATA, "{address}");
    }

    let everything = AddressGuard::new()
        .allow("0.0.0.0/0".parse().unwrap())
        .allow("::/0".parse().unwrap());
    assert!(everything.check(ip("10.0.0.1")).is_ok());
    assert!(everything.check(ip("fd00::1")).is_ok());
    for address in [
        "169.254.169.254",
        "100.100.100.200",
        "168.63.129.16",
        "fd00:ec2::254",
    ] {
        assert!(everything.check(ip(address)).is_err(), "{address}");
    }
    let wider = AddressGuard::new()
        .allow("100.64.0.0/10".parse().unwrap())
        .allow("168.63.0.0/16".parse().unwrap())
        .allow("169.254.169.254/31".parse().unwrap());
    assert!(wider.check(ip("100.100.100.200")).is_err());
    assert!(wider.check(ip("168.63.129.16")).is_err());
    assert!(wider.check(ip("169.254.169.254")).is_err());
    assert!(wider.check(ip("169.254.169.255")).is_ok());
}

#[test]
fn only_the_exact_address_lets_a_metadata_address_through() {
    let aws = AddressGuard::new()
        .allow("169.254.169.254/32".parse().unwrap())
        .allow("fd00:ec2::254/128".parse().unwrap());
    assert!(aws.check(ip("169.254.169.254")).is_ok());
    assert!(aws.check(ip("::ffff:169.254.169.254")).is_ok());
    assert!(aws.check(ip("fd00:ec2::254")).is_ok());
    // The other metadata addresses and the rest of the range stay refused.
    assert!(aws.check(ip("100.100.100.200")).is_err());
    assert!(aws.check(ip("168.63.129.16")).is_err());
    assert!(aws.check(ip("169.254.169.253")).is_err());
    assert!(aws.check(ip("fd00:ec2::253")).is_err());

    // A denied range still wins over the exact address.
    let denied = AddressGuard::new()
        .allow("169.254.169.254/32".parse().unwrap())
        .deny("169.254.0.0/16".parse().unwrap());
    let refused = denied.check(ip("169.254.169.254")).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "169.254.169.254 is in a range this host refuses (169.254.0.0/16)"
    );

    // Without the table, the metadata addresses pass.
    let open = AddressGuard::allow_all();
    for address in [
        "169.254.169.254",
        "100.100.100.200",
        "168.63.129.16",
        "fd00:ec2::254",
        "2002:a9fe:a9fe::1",
    ] {
        assert!(open.check(ip(address)).is_ok(), "{address}");
    }
}

#[test]
fn refusing_this_machine_takes_both_loopback_ranges() {
    let v4_only = AddressGuard::new().deny("127.0.0.0/8".parse().unwrap());
    assert!(v4_only.check(ip("127.0.0.1")).is_err());
    assert!(v4_only.check(ip("::ffff:127.0.0.1")).is_err());
    assert!(v4_only.check(ip("::1")).is_ok());

    let strict = v4_only.deny("::1/128".parse().unwrap());
    assert!(strict.check(ip("::1")).is_err());

    // Without the table, the unspecified addresses need denying too.
    let open = AddressGuard::allow_all()
        .deny("127.0.0.0/8".parse().unwrap())
        .deny("::1/128".parse().unwrap());
    assert!(open.check(ip("0.0.0.0")).is_ok());
    assert!(open.check(ip("::")).is_ok());
    let open = open
        .deny("0.0.0.0/8".parse().unwrap())
        .deny("::/128".parse().unwrap());
    assert!(open.check(ip("0.0.0.0")).is_err());
    assert!(open.check(ip("::")).is_err());
    assert!(open.check(ip("::ffff:0.0.0.0")).is_err());
}
