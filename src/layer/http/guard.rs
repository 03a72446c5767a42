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
/// Refused by default: private (`10/8`, `172.16/12`, `192.168/16`), shared
/// (CGNAT, `100.64/10`), link-local (`169.254/16`, `fe80::/10`), unique-local
/// (`fc00::/7`), site-local (`fec0::/10`), multicast, broadcast, reserved and
/// unspecified addresses, and the cloud metadata addresses
/// (`169.254.169.254`, `fd00:ec2::254`, `100.100.100.200`). An IPv6 address
/// that carries an IPv4 one (`::ffff:10.0.0.1`, `64:ff9b::a00:1`) is judged by
/// that IPv4 address. Loopback is allowed: a policy daemon on the same machine
/// is what HTTP hooks are mostly for. Public addresses are allowed.
///
/// A host can narrow the guard ([`deny`](AddressGuard::deny), e.g. loopback
/// too) or widen it ([`allow`](AddressGuard::allow), e.g. its own policy
/// service on `10.20.0.0/16`); a denied range wins over an allowed one, and
/// both over the built-in table.
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
///
/// let internal = AddressGuard::new().allow("10.20.0.0/16".parse().unwrap());
/// assert!(internal.check(ip("10.20.3.4")).is_ok());
/// assert!(internal.check(ip("10.21.0.1")).is_err());
/// let strict = AddressGuard::new().deny("127.0.0.0/8".parse().unwrap());
/// assert!(strict.check(ip("127.0.0.1")).is_err());
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

/// The built-in table, most specific first: each range with what it is.
const TABLE: &[(&str, &str)] = &[
    ("169.254.169.254/32", "the cloud metadata address"),
    ("100.100.100.200/32", "the cloud metadata address"),
    ("fd00:ec2::254/128", "the cloud metadata address"),
    ("0.0.0.0/8", "an unspecified address"),
    ("10.0.0.0/8", "a private address"),
    ("100.64.0.0/10", "a shared (CGNAT) address"),
    ("169.254.0.0/16", "a link-local address"),
    ("172.16.0.0/12", "a private address"),
    ("192.168.0.0/16", "a private address"),
    ("224.0.0.0/4", "a multicast address"),
    ("255.255.255.255/32", "the broadcast address"),
    ("240.0.0.0/4", "a reserved address"),
    ("::/128", "an unspecified address"),
    ("fc00::/7", "a unique-local address"),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local address"),
    ("ff00::/8", "a multicast address"),
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
    /// adds. For a host whose network stands behind its own egress policy.
    pub fn allow_all() -> Self {
        AddressGuard {
            table: false,
            ..AddressGuard::new()
        }
    }

    /// Widens the guard: addresses in `range` are allowed, unless a range
    /// given to [`deny`](Self::deny) holds them.
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
        if self.allowed.iter().any(|r| in_range(r, address, judged)) || !self.table {
            return Ok(());
        }
        for (range, what) in TABLE {
            let range: IpNet = range.parse().expect("the table's ranges parse");
            if range.contains(&judged) {
                return Err(refused(range, what));
            }
        }
        Ok(())
    }

    /// The built-in table: each refused range, and what it is.
    pub fn table() -> impl Iterator<Item = (IpNet, &'static str)> {
        TABLE
            .iter()
            .map(|(range, what)| (range.parse().expect("the table's ranges parse"), *what))
    }
}

/// Whether `range` holds the address as written or the IPv4 one it carries.
fn in_range(range: &IpNet, address: IpAddr, judged: IpAddr) -> bool {
    range.contains(&address) || range.contains(&judged)
}

/// The IPv4 address an IPv6 one carries: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`, but not `::` and `::1`) and NAT64
/// (`64:ff9b::a.b.c.d`).
fn embedded_v4(address: IpAddr) -> Option<Ipv4Addr> {
    let IpAddr::V6(v6) = address else {
        return None;
    };
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let low = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..6] == [0; 6] && v6 != Ipv6Addr::UNSPECIFIED && v6 != Ipv6Addr::LOCALHOST {
        return Some(low());
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low());
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

    #[test]
    fn the_table_parses_and_names_each_range() {
        assert_eq!(AddressGuard::table().count(), TABLE.len());
    }
}
