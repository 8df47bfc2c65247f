"""The namespace lab as two ports: `landspeed serve` and the snappi client
in the tester namespace of `scripts/lab up --loop`, flows both ways across
a veth pair on DPDK's af_packet PMD. Needs root (network namespaces)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import BINARY, ROOT, free_port

PREFIX = "lsotg"
LAB = os.path.join(ROOT, "scripts", "lab")


def may_make_namespaces():
    if os.geteuid() != 0:
        return False
    probe = f"{PREFIX}-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    if made:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return made


@pytest.mark.skipif(not may_make_namespaces(), reason="network namespaces need root")
def test_flows_both_ways_across_the_namespace_lab():
    subprocess.run([LAB, "down", "--prefix", PREFIX], capture_output=True)
    subprocess.run([LAB, "up", "--loop", "--mtu", "1500", "--frame-size", "1518", "--prefix", PREFIX], check=True, capture_output=True)
    ns = f"{PREFIX}-t"
    port = free_port()
    server = subprocess.Popen(
        ["ip", "netns", "exec", ns, BINARY, "serve", "--listen", f"127.0.0.1:{port}"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        driver = subprocess.run(
            ["ip", "netns", "exec", ns, sys.executable, os.path.join(os.path.dirname(__file__), "lab_driver.py"),
             f"http://127.0.0.1:{port}", PREFIX],
            capture_output=True, text=True, timeout=120,
        )
        assert driver.returncode == 0, driver.stderr
        east, west = json.loads(driver.stdout)
        for m in (east, west):
            assert m["transmit"] == "stopped"
            assert int(m["frames_tx"]) == 5000, m
            assert int(m["frames_rx"]) == 5000, m
            assert int(m["bytes_rx"]) == 5000 * 1518
            assert m["loss"] == 0.0
            assert 0 < m["latency"]["minimum_ns"] <= m["latency"]["maximum_ns"]
        assert (east["port_tx"], east["port_rx"], west["port_tx"], west["port_rx"]) == ("t0", "t1", "t1", "t0")
    finally:
        server.send_signal(2)
        try:
            server.wait(timeout=30)
        finally:
            if server.poll() is None:
                server.kill()
            subprocess.run([LAB, "down", "--prefix", PREFIX], capture_output=True)
