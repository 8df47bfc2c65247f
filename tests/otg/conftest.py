"""Fixtures for the OTG suite: a `landspeed serve` on a free loopback port,
driven by the unmodified `snappi` client from PyPI."""

import ipaddress
import os
import socket
import struct
import subprocess
import time

import pytest
import requests
import snappi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("LANDSPEED", os.path.join(ROOT, "target", "ci", "landspeed"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `landspeed serve` process."""

    def __init__(self, *extra):
        self.port = free_port()
        self.args = [BINARY, "serve", "--listen", f"127.0.0.1:{self.port}", *extra]
        self.proc = subprocess.Popen(self.args, stderr=subprocess.PIPE, text=True)
        scheme = "https" if ("--tls" in extra or "--cert" in extra) else "http"
        self.location = f"{scheme}://127.0.0.1:{self.port}"
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve ended: {self.proc.stderr.read()}")
            try:
                requests.get(self.location + "/capabilities/version", verify=False, timeout=1)
                return
            except requests.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("serve did not answer within 20 s")

    def api(self):
        return snappi.api(location=self.location, verify=False)

    def stop(self):
        self.proc.send_signal(2)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def server():
    s = Server()
    yield s
    s.stop()
    assert s.proc.returncode == 0, s.proc.stderr.read()


@pytest.fixture
def api(server):
    return server.api()


def start(api):
    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
    return api.set_control_state(cs)


def stop(api):
    cs = api.control_state()
    cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.STOP
    return api.set_control_state(cs)


def flow_metrics(api, names=()):
    r = api.metrics_request()
    r.flow.flow_names = list(names)
    return api.get_metrics(r).flow_metrics


def port_metrics(api, names=()):
    r = api.metrics_request()
    r.port.port_names = list(names)
    return api.get_metrics(r).port_metrics


def wait_stopped(api, limit=60):
    """Polls flow metrics until every flow has stopped; returns them."""
    deadline = time.time() + limit
    while time.time() < deadline:
        fm = flow_metrics(api)
        if all(m.transmit == "stopped" for m in fm):
            return fm
        time.sleep(0.2)
    raise AssertionError(f"flows still running after {limit} s")


def pcap_records(data):
    """The records of a classic pcap file (little-endian, us or ns): each
    (time in ns, length received, bytes kept)."""
    magic, major, minor, _, _, snap, link = struct.unpack_from("<IHHiIII", data, 0)
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    assert (major, minor, link) == (2, 4, 1), (major, minor, link)
    frac = 1 if magic == 0xA1B23C4D else 1000
    off, records = 24, []
    while off < len(data):
        sec, sub, caplen, wirelen = struct.unpack_from("<IIII", data, off)
        assert caplen <= min(snap, wirelen), (caplen, snap, wirelen)
        records.append((sec * 10**9 + sub * frac, wirelen, data[off + 16 : off + 16 + caplen]))
        off += 16 + caplen
    assert off == len(data), "a record runs past the end"
    return records


def ones_complement(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def assert_udp_frame(f, i):
    """Frame `i` of the UDP flow the tests build (udp_flow): its MACs,
    addresses, stepped source port and both checksums, verified here."""
    assert f[0:6] == bytes.fromhex("020000000002")
    assert f[6:12] == bytes.fromhex("020000000001")
    assert f[12:14] == b"\x08\x00"
    ip = f[14:34]
    assert ip[0] == 0x45
    assert ipaddress.IPv4Address(ip[12:16]) == ipaddress.IPv4Address("198.18.0.1")
    assert ipaddress.IPv4Address(ip[16:20]) == ipaddress.IPv4Address("198.19.0.1")
    assert ones_complement(ip) == 0xFFFF, "IPv4 header checksum"
    total = struct.unpack("!H", ip[2:4])[0]
    assert total == len(f) - 14
    udp = f[34 : 14 + total]
    sport, dport, ulen, _ = struct.unpack("!HHHH", udp[:8])
    assert (sport, dport) == (1000 + i % 10, 5001)
    assert ulen == len(udp)
    pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, ulen)
    assert ones_complement(pseudo + udp) == 0xFFFF, "UDP checksum"
