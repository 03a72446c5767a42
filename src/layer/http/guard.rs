//! The SSRF guard of HTTP hooks (see [`AddressGuard`]).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

/// The SSRF guard of HTTP hooks: which addresses a hook may connect to.
///
/// A hooks file names a URL, and a hooks file may come from a repository the
/// user merely cloned. Without a guard, a hook could make the agent's machine
/// post session data to the cloud metadata service or to anything on its
/// private network. The guard looks at every address a hook's host resolves
/// to (and at an address written in the URL itself) **before any connection**,
/// and refuses the whole request when one of them is in a refused range.
///
/// Refused by default: every block of the IANA IPv4 and IPv6 Special-Purpose
/// Address Registries but loopback (see [`table`](AddressGuard::table)):
/// private (`10/8`, `172.16/12`, `192.168/16`), shared (CGNAT, `100.64/10`),
/// link-local (`169.254/16`, `fe80::/10`), unique-local (`fc00::/7`), IETF
/// protocol assignments (`192.0.0/24`, `2001::/23`, with Teredo `2001::/32`
/// and benchmarking `2001:2::/48` named apart), benchmarking (`198.18/15`),
/// documentation (`192.0.2/24`, `198.51.100/24`, `203.0.113/24`,
/// `2001:db8::/32`, `3fff::/20`), discard-only (`100::/64`), AS112, AMT, the
/// deprecated 6to4 relay anycast block, SRv6 (`5f00::/16`), broadcast,
/// reserved and unspecified addresses; besides them multicast, site-local
/// (`fec0::/10`), and the cloud metadata addresses (`169.254.169.254`,
/// `fd00:ec2::254`, `100.100.100.200`, and Azure's WireServer
/// `168.63.129.16`). An IPv6 address that carries an IPv4 one is
/// judged by that IPv4 address: IPv4-mapped (`::ffff:10.0.0.1`),
/// IPv4-translated (SIIT, `::ffff:0:10.0.0.1`), IPv4-compatible
/// (`::10.0.0.1`), NAT64 (`64:ff9b::a00:1`, and the local-use
/// `64:ff9b:1::/48` with the IPv4 address in its last 32 bits) and 6to4
/// (`2002:a00:1::1`, the IPv4 address right after the `2002` prefix).
/// Loopback is allowed: a policy daemon on the same machine is what HTTP hooks
/// are mostly for. Public addresses are allowed.
///
/// A host can narrow the guard ([`deny`](AddressGuard::deny)) or widen it
/// ([`allow`](AddressGuard::allow), e.g. its own policy service on
/// `10.20.0.0/16`); a denied range wins over an allowed one, and both over the
/// built-in table, with one exception: a cloud metadata address stays refused
/// when only a broader allowed range holds it. Allowing `169.254.0.0/16` or
/// `fd00::/8` does not open `169.254.169.254` or `fd00:ec2::254`; an allowed
/// range that is exactly that one address (`/32` or `/128`) does.
///
/// To refuse this machine as well, deny both loopback ranges, `127.0.0.0/8`
/// and `::1/128`: the one does not cover the other. Under
/// [`allow_all`](AddressGuard::allow_all), which has no table, the
/// unspecified addresses (`0.0.0.0`, `::`) reach this machine too, so deny
/// `0.0.0.0/8` and `::/128` as well when that matters.
///
/// ```
/// use std::net::IpAddr;
/// use tower_hooks::layer::http::AddressGuard;
///
/// let guard = AddressGuard::new();
/// let ip = |s: &str| s.parse::<IpAddr>().unwrap();
/// assert!(guard.check(ip("127.0.0.1")).is_ok());
/// assert!(guard.check(ip("93.184.215.14")).is_ok());
/// let refused = guard.check(ip("169.254.169.254")).unwrap_err();
/// assert_eq!(refused.to_string(), "169.254.169.254 is the cloud metadata address (169.254.169.254/32)");
/// assert!(guard.check(ip("::ffff:10.1.2.3")).is_err());
/// assert!(guard.check(ip("2002:a9fe:a9fe::1")).is_err());
///
/// let internal = AddressGuard::new().allow("10.20.0.0/16".parse().unwrap());
/// assert!(internal.check(ip("10.20.3.4")).is_ok());
/// assert!(internal.check(ip("10.21.0.1")).is_err());
/// let link_local = AddressGuard::new().allow("169.254.0.0/16".parse().unwrap());
/// assert!(link_local.check(ip("169.254.1.2")).is_ok());
/// assert!(link_local.check(ip("169.254.169.254")).is_err());
///
/// // Strict: this machine too, over IPv4 and IPv6.
/// let strict = AddressGuard::new()
///     .deny("127.0.0.0/8".parse().unwrap())
///     .deny("::1/128".parse().unwrap());
/// assert!(strict.check(ip("127.0.0.1")).is_err());
/// assert!(strict.check(ip("::1")).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressGuard {
    /// The built-in table applies.
    table: bool,
    allowed: Vec<IpNet>,
    denied: Vec<IpNet>,
}

impl Default for AddressGuard {
    fn default() -> Self {
        AddressGuard::new()
    }
}

/// What the guard refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    address: IpAddr,
    range: IpNet,
    what: &'static str,
}

impl Refused {
    /// The refused address.
    pub fn address(&self) -> IpAddr {
        self.address
    }

    /// The range it is in.
    pub fn range(&self) -> IpNet {
        self.range
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {} ({})", self.address, self.what, self.range)
    }
}

impl std::error::Error for Refused {}

/// What the table calls a cloud metadata address: a broader allowed range
/// does not open these (see [`AddressGuard::allow`]).
const METADATA: &str = "the cloud metadata address";

/// The built-in table, most specific first: each range with what it is and
/// where it is defined. No row holds a row that comes after it.
///
/// Built from the IANA IPv4 and IPv6 Special-Purpose Address Registries
/// (RFC 6890), every block of which is refused but three kinds: loopback
/// (`127.0.0.0/8`, `::1/128`), which a policy daemon on this machine needs;
/// the blocks that carry an IPv4 address (`::ffff:0:0/96`, `64:ff9b::/96`,
/// `64:ff9b:1::/48`, `2002::/16`), which are judged by that address (see
/// [`embedded_v4`]); and the blocks inside a larger refused block whose name
/// says enough (`0.0.0.0/32` in `0.0.0.0/8`; the assignments of
/// `192.0.0.0/24`: `192.0.0.0/29`, `192.0.0.8/32`, `192.0.0.9/32`,
/// `192.0.0.10/32`, `192.0.0.170/32`, `192.0.0.171/32`; `192.88.99.2/32` in
/// `192.88.99.0/24`). The blocks of `2001::/23` have rows of their own, so
/// that a message names the tunnel or test network an address is in. The
/// registries' globally reachable anycast blocks (AS112, AMT, the anycast
/// addresses of PCP, TURN and DNS-SD) are refused too: no policy server
/// answers there. Besides the registries: multicast (`224.0.0.0/4`,
/// `ff00::/8`), the deprecated site-local block, and the cloud metadata
/// addresses.
const TABLE: &[(&str, &str, &str)] = &[
    (
        "169.254.169.254/32",
        METADATA,
        "AWS, Google Cloud and Azure instance metadata",
    ),
    (
        "100.100.100.200/32",
        METADATA,
        "Alibaba Cloud instance metadata",
    ),
    ("168.63.129.16/32", METADATA, "Azure WireServer"),
    (
        "fd00:ec2::254/128",
        METADATA,
        "AWS instance metadata over IPv6",
    ),
    // IPv4 Special-Purpose Address Registry.
    ("0.0.0.0/8", "an unspecified address", "RFC 791, RFC 1122"),
    ("10.0.0.0/8", "a private address", "RFC 1918"),
    ("100.64.0.0/10", "a shared (CGNAT) address", "RFC 6598"),
    ("169.254.0.0/16", "a link-local address", "RFC 3927"),
    ("172.16.0.0/12", "a private address", "RFC 1918"),
    (
        "192.0.0.0/24",
        "an IETF protocol assignment address",
        "RFC 6890",
    ),
    ("192.0.2.0/24", "a documentation address", "RFC 5737"),
    ("192.31.196.0/24", "an AS112 DNS address", "RFC 7535"),
    ("192.52.193.0/24", "an AMT relay address", "RFC 7450"),
    (
        "192.88.99.0/24",
        "a 6to4 relay anycast address (deprecated)",
        "RFC 7526",
    ),
    ("192.168.0.0/16", "a private address", "RFC 1918"),
    ("198.18.0.0/15", "a benchmarking address", "RFC 2544"),
    ("198.51.100.0/24", "a documentation address", "RFC 5737"),
    ("203.0.113.0/24", "a documentation address", "RFC 5737"),
    ("224.0.0.0/4", "a multicast address", "RFC 5771"),
    (
        "255.255.255.255/32",
        "the broadcast address",
        "RFC 919, RFC 8190",
    ),
    ("240.0.0.0/4", "a reserved address", "RFC 1112"),
    // IPv6 Special-Purpose Address Registry.
    ("::/128", "an unspecified address", "RFC 4291"),
    ("100::/64", "a discard-only address", "RFC 6666"),
    ("2001::/32", "a Teredo tunnel address", "RFC 4380"),
    ("2001:1::1/128", "the PCP anycast address", "RFC 7723"),
    ("2001:1::2/128", "the TURN anycast address", "RFC 8155"),
    (
        "2001:1::3/128",
        "the DNS-SD SRP anycast address",
        "RFC 9665",
    ),
    ("2001:2::/48", "a benchmarking address", "RFC 5180"),
    ("2001:3::/32", "an AMT relay address", "RFC 7450"),
    ("2001:4:112::/48", "an AS112 DNS address", "RFC 7535"),
    ("2001:10::/28", "an ORCHID address (deprecated)", "RFC 4843"),
    ("2001:20::/28", "an ORCHIDv2 address", "RFC 7343"),
    (
        "2001:30::/28",
        "a drone remote ID (DET) address",
        "RFC 9374",
    ),
    (
        "2001::/23",
        "an IETF protocol assignment address",
        "RFC 2928",
    ),
    ("2001:db8::/32", "a documentation address", "RFC 3849"),
    ("2620:4f:8000::/48", "an AS112 DNS address", "RFC 7534"),
    ("3fff::/20", "a documentation address", "RFC 9637"),
    ("5f00::/16", "a segment routing (SRv6) address", "RFC 9602"),
    ("fc00::/7", "a unique-local address", "RFC 4193"),
    ("fe80::/10", "a link-local address", "RFC 4291"),
    // Besides the registries.
    ("fec0::/10", "a site-local address", "RFC 3879"),
    ("ff00::/8", "a multicast address", "RFC 4291"),
];

impl AddressGuard {
    /// The guard on by default: the built-in table of refused ranges.
    pub fn new() -> Self {
        AddressGuard {
            table: true,
            allowed: Vec::new(),
            denied: Vec::new(),
        }
    }

    /// No built-in table: every address is allowed but those [`deny`](Self::deny)
    /// adds, the cloud metadata addresses and this machine's unspecified
    /// addresses (`0.0.0.0`, `::`) included. For a host whose network stands
    /// behind its own egress policy.
    pub fn allow_all() -> Self {
        AddressGuard {
            table: false,
            ..AddressGuard::new()
        }
    }

    /// Widens the guard: addresses in `range` are allowed, unless a range
    /// given to [`deny`](Self::deny) holds them.
    ///
    /// A cloud metadata address of the built-in table is allowed only by a
    /// range that is exactly that address (`169.254.169.254/32`,
    /// `fd00:ec2::254/128`): a broader range such as `169.254.0.0/16` leaves it
    /// refused.
    pub fn allow(mut self, range: IpNet) -> Self {
        self.allowed.push(range.trunc());
        self
    }

    /// Narrows the guard: addresses in `range` are refused, whatever else
    /// allows them.
    pub fn deny(mut self, range: IpNet) -> Self {
        self.denied.push(range.trunc());
        self
    }

    /// Whether a hook may connect to `address`.
    pub fn check(&self, address: IpAddr) -> Result<(), Refused> {
        let judged = embedded_v4(address).map_or(address, IpAddr::V4);
        let refused = |range: IpNet, what| Refused {
            address,
            range,
            what,
        };
        if let Some(range) = self.denied.iter().find(|r| in_range(r, address, judged)) {
            return Err(refused(*range, "in a range this host refuses"));
        }
        if !self.table {
            return Ok(());
        }
        // The table is most specific first, so the first row that holds the
        // address is the one that names it.
        let Some((range, what)) = Self::table().find(|(range, _)| range.contains(&judged)) else {
            return Ok(());
        };
        let allowed = if what == METADATA {
            self.allowed.iter().any(|r| is_exactly(r, address, judged))
        } else {
            self.allowed.iter().any(|r| in_range(r, address, judged))
        };
        if allowed {
            Ok(())
        } else {
            Err(refused(range, what))
        }
    }

    /// The built-in table: each refused range, and what it is.
    pub fn table() -> impl Iterator<Item = (IpNet, &'static str)> {
        TABLE
            .iter()
            .map(|(range, what, _)| (range.parse().expect("the table's ranges parse"), *what))
    }
}

/// Whether `range` holds the address as written or the IPv4 one it carries.
fn in_range(range: &IpNet, address: IpAddr, judged: IpAddr) -> bool {
    range.contains(&address) || range.contains(&judged)
}

/// Whether `range` is one single address: the address as written or the
/// IPv4 one it carries.
fn is_exactly(range: &IpNet, address: IpAddr, judged: IpAddr) -> bool {
    range.prefix_len() == range.max_prefix_len()
        && (range.addr() == address || range.addr() == judged)
}

/// The IPv4 address an IPv6 one carries: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-translated (SIIT, `::ffff:0:a.b.c.d`, RFC 2765), IPv4-compatible
/// (`::a.b.c.d`, but not `::` and `::1`), NAT64
/// (`64:ff9b::a.b.c.d`), local-use NAT64 (`64:ff9b:1::/48`, the IPv4 address
/// in the last 32 bits) and 6to4 (`2002:aabb:ccdd::/48`, the IPv4 address in
/// the 32 bits after the `2002` prefix).
fn embedded_v4(address: IpAddr) -> Option<Ipv4Addr> {
    let IpAddr::V6(v6) = address else {
        return None;
    };
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let low = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..6] == [0, 0, 0, 0, 0xffff, 0] {
        return Some(low());
    }
    if s[..6] == [0; 6] && v6 != Ipv6Addr::UNSPECIFIED && v6 != Ipv6Addr::LOCALHOST {
        return Some(low());
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || s[..3] == [0x64, 0xff9b, 1] {
        return Some(low());
    }
    if s[0] == 0x2002 {
        let [a, b] = s[1].to_be_bytes();
        let [c, d] = s[2].to_be_bytes();
        return Some(Ipv4Addr::new(a, b, c, d));
    }
    None
}

#[cfg(test)]
mod tests {
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
}
