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
mod tests;
