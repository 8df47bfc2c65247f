//! Generates the raw bindings to the system DPDK and compiles the C shim.
//!
//! pkg-config's full `--cflags` set is used for both bindgen and the C
//! compiler: DPDK's headers need `-include rte_config.h` and a `-march`
//! with SSSE3, which the pkg-config crate would drop.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const MISSING: &str = "DPDK development files not found: `pkg-config libdpdk` failed. \
     Install them with `apt-get install libdpdk-dev dpdk pkg-config` (Debian 12 ships DPDK 22.11).";

fn pkg_config(args: &[&str]) -> Vec<String> {
    let out = Command::new("pkg-config")
        .args(args)
        .arg("libdpdk")
        .output()
        .unwrap_or_else(|e| panic!("{MISSING} ({e})"));
    if !out.status.success() {
        panic!("{MISSING}\n{}", String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

fn main() {
    println!("cargo:rerun-if-changed=wrapper.h");
    println!("cargo:rerun-if-changed=shim.h");
    println!("cargo:rerun-if-changed=shim.c");
    println!("cargo:rerun-if-changed=flags.h");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");

    let version = pkg_config(&["--modversion"]);
    let cflags = pkg_config(&["--cflags"]);
    let libs = pkg_config(&["--libs"]);
    if let Some(v) = version.first() {
        println!("cargo:rustc-env=LANDSPEED_DPDK_VERSION={v}");
    }

    // Link only the libraries the engine calls into.
    for dir in libs.iter().filter_map(|f| f.strip_prefix("-L")) {
        println!("cargo:rustc-link-search=native={dir}");
    }
    for lib in [
        "rte_ethdev",
        "rte_mbuf",
        "rte_mempool",
        "rte_ring",
        "rte_eal",
        "rte_kvargs",
        "rte_net",
        // The ring PMD's rte_eth_from_rings: ports wired from shared rings.
        "rte_net_ring",
    ] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }

    let mut build = cc::Build::new();
    build
        .file("shim.c")
        .include(".")
        .opt_level(3)
        .warnings(true);
    let mut clang_args = Vec::new();
    let mut it = cflags.iter();
    while let Some(flag) = it.next() {
        if flag == "-include" {
            let header = it
                .next()
                .expect("-include without a header in pkg-config output");
            build.flag("-include").flag(header);
            clang_args.push("-include".to_owned());
            clang_args.push(header.clone());
        } else {
            build.flag(flag);
            clang_args.push(flag.clone());
        }
    }
    build.compile("landspeed_shim");

    let bindings = bindgen::Builder::default()
        .header("wrapper.h")
        .clang_args(&clang_args)
        .clang_arg("-I.")
        .allowlist_function("rte_(eal|eth|pktmbuf|mempool|lcore|strerror|get_tsc|delay|socket|log|mbuf)_.*")
        .allowlist_function("rte_(strerror|get_main_lcore|socket_id|get_next_lcore)")
        .allowlist_function("ls_.*")
        .allowlist_type("rte_eth_.*")
        .allowlist_type("rte_mbuf")
        .allowlist_var("LS_.*")
        .allowlist_var("SOCKET_ID_ANY")
        .allowlist_var("RTE_(MAX_ETHPORTS|MAX_LCORE|ETH_NAME_MAX_LEN|ETH_XSTATS_NAME_SIZE|PKTMBUF_HEADROOM|MBUF_DEFAULT_BUF_SIZE|ETHER_MAX_LEN|ETHER_CRC_LEN|ETHER_HDR_LEN|ETH_LINK_.*|ETH_SPEED_NUM_.*)")
        .blocklist_type("rte_arp_hdr")
        .blocklist_type("__tile1024i")
        .derive_default(true)
        .derive_debug(false)
        .layout_tests(false)
        .generate_comments(false)
        .prepend_enum_name(false)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .generate()
        .expect("bindgen could not generate DPDK bindings (is libclang-dev installed?)");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("bindings.rs");
    bindings
        .write_to_file(&out)
        .expect("could not write DPDK bindings");
}
