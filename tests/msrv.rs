//! The declared `rust-version` is honest: every package that the README's two
//! commands (`cargo run --example agent`, `cargo test --workspace`) compile
//! declares a `rust-version` no higher than the workspace's.
//!
//! The packages are those of `Cargo.lock` as `cargo metadata` resolves them for
//! this machine's platform: the workspace members, their normal, build and dev
//! dependencies, and the normal and build dependencies of those, transitively
//! (the dev dependencies of a registry package are never built). A package that
//! declares no `rust-version` does not count.
//!
//! When this fails, pin the offending dependency to a version that builds with
//! the declared `rust-version` (the workspace's `resolver = "3"` makes `cargo
//! update` prefer those), or raise `rust-version` in the root `Cargo.toml`.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A `rust-version` as `(major, minor, patch)`; `"1.85"` is `(1, 85, 0)`.
type Version = (u64, u64, u64);

fn parse_version(text: &str) -> Version {
    let mut parts = text.split('.').map(|part| {
        part.parse::<u64>()
            .unwrap_or_else(|_| panic!("not a rust-version: {text:?}"))
    });
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    assert!(parts.next().is_none(), "not a rust-version: {text:?}");
    (major, minor, patch)
}

fn show((major, minor, patch): Version) -> String {
    format!("{major}.{minor}.{patch}")
}

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `workspace.package.rust-version` of the root `Cargo.toml`.
fn declared_rust_version() -> Version {
    let text = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    let declared = manifest["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("workspace.package.rust-version is a string");
    parse_version(declared)
}

fn host_triple() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let out = Command::new(rustc).arg("-vV").output().unwrap();
    assert!(out.status.success(), "rustc -vV failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_owned()
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--filter-platform"])
        .arg(host_triple())
        .current_dir(workspace_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// One package that the workspace builds: its name, version and `rust-version`.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Built {
    rust_version: Option<Version>,
    name: String,
    version: String,
}

/// Every package the workspace builds, found through `resolve.nodes`.
fn built_packages(metadata: &Value) -> Vec<Built> {
    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| (package["id"].as_str().unwrap(), package))
        .collect();
    let nodes: HashMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| (node["id"].as_str().unwrap(), node))
        .collect();
    let members: BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();

    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = members.iter().copied().collect();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            // `kind` is null for a normal dependency, "build" or "dev" otherwise.
            let built = dep["dep_kinds"].as_array().unwrap().iter().any(|kind| {
                match kind["kind"].as_str() {
                    None | Some("build") => true,
                    Some("dev") => members.contains(id),
                    Some(other) => panic!("unknown dependency kind {other:?}"),
                }
            });
            if built {
                todo.push(dep["pkg"].as_str().unwrap());
            }
        }
    }

    let mut built: Vec<Built> = seen
        .into_iter()
        .map(|id| {
            let package = packages[id];
            Built {
                rust_version: package["rust_version"].as_str().map(parse_version),
                name: package["name"].as_str().unwrap().to_owned(),
                version: package["version"].as_str().unwrap().to_owned(),
            }
        })
        .collect();
    built.sort();
    built
}

#[test]
fn declared_rust_version_covers_every_package_the_workspace_builds() {
    let declared = declared_rust_version();
    let built = built_packages(&metadata());

    // The walk reaches the normal, build and dev dependencies it must see.
    for name in [
        "tower-hooks-cli",
        "tokio",
        "nix",
        "clap",
        "proptest",
        "criterion",
    ] {
        assert!(
            built.iter().any(|package| package.name == name),
            "{name} is not among the packages the workspace builds"
        );
    }

    let too_new: Vec<String> = built
        .iter()
        .filter(|package| package.rust_version.is_some_and(|needed| needed > declared))
        .map(|package| {
            format!(
                "{} {} needs Rust {}",
                package.name,
                package.version,
                show(package.rust_version.unwrap())
            )
        })
        .collect();
    let highest = built
        .iter()
        .filter_map(|package| package.rust_version)
        .max();
    assert!(
        too_new.is_empty(),
        "rust-version = {} is declared, but the workspace needs {}:\n  {}",
        show(declared),
        highest.map(show).unwrap_or_default(),
        too_new.join("\n  ")
    );
}

#[test]
fn every_member_declares_the_workspace_rust_version() {
    let declared = declared_rust_version();
    let metadata = metadata();
    let members: BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    for package in metadata["packages"].as_array().unwrap() {
        if members.contains(package["id"].as_str().unwrap()) {
            assert_eq!(
                package["rust_version"].as_str().map(parse_version),
                Some(declared),
                "{} does not inherit the workspace's rust-version",
                package["name"]
            );
        }
    }
}
