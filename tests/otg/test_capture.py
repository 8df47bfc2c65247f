"""Port capture through snappi: the frames a port received come back as a
pcap file, checked field by field by the suite's own reader."""

import pytest

from conftest import assert_udp_frame, pcap_records, port_metrics, start, wait_stopped
from test_flows import udp_flow
from test_refusals import refusal


def capture_state(api, state, ports=()):
    cs = api.control_state()
    cs.port.capture.port_names = list(ports)
    cs.port.capture.state = state
    return api.set_control_state(cs)


def get_capture(api, port):
    r = api.capture_request()
    r.port_name = port
    return api.get_capture(r).read()


def test_a_capture_returns_the_frames_the_port_received(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    udp_flow(c, "f1", "p1", "p1", 25, size=256)
    c.captures.capture(name="cap", port_names=["p1"])
    w = api.set_config(c).warnings
    assert w == ["captures[0]: landspeed keeps the last 10000 frames each of its ports receives"]
    (p,) = port_metrics(api, ["p1"])
    assert p.capture == "stopped"
    capture_state(api, "start", ["p1"])
    (p,) = port_metrics(api, ["p1"])
    assert p.capture == "started"
    start(api)
    (m,) = wait_stopped(api)
    assert (m.frames_tx, m.frames_rx, m.loss) == (25, 25, 0.0)
    capture_state(api, "stop")
    records = pcap_records(get_capture(api, "p1"))
    assert len(records) == 25
    for i, (_, length, f) in enumerate(records):
        assert length == len(f) == 252, "whole frames, FCS not included"
        assert_udp_frame(f, i)
    times = [t for t, _, _ in records]
    assert times == sorted(times) and times[0] > 1_600_000_000 * 10**9


def test_the_first_frames_cut_at_the_packet_size(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    udp_flow(c, "f1", "p1", "p1", 12000, pps=100000, size=128)
    c.captures.capture(name="cap", port_names=["p1"], overwrite=False, packet_size=42)
    api.set_config(c)
    capture_state(api, "start")
    start(api)
    (m,) = wait_stopped(api)
    assert (m.frames_tx, m.frames_rx) == (12000, 12000)
    records = pcap_records(get_capture(api, "p1"))
    assert len(records) == 10000, "the first 10,000 of 12,000"
    for i, (_, length, f) in enumerate(records):
        assert (length, len(f)) == (124, 42)
        assert (f[34] << 8 | f[35]) == 1000 + i % 10, f"frame {i}: its UDP source port"


def test_captures_asked_at_the_wrong_time_are_refused(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    c.ports.port(name="p2", location="net_ring1")
    f = udp_flow(c, "f1", "p1", "p1", 1)
    f.duration.continuous.gap = 12
    f.rate.pps = 1000
    c.captures.capture(name="cap", port_names=["p1"])
    api.set_config(c)
    assert refusal(lambda: get_capture(api, "p1")) == (
        "port_name: p1 was not captured: start its capture (control state port.capture) before the traffic"
    )
    assert refusal(lambda: capture_state(api, "start", ["p2"])) == (
        "port.capture.port_names[0]: p2 is in no capture of the config"
    )
    capture_state(api, "start", ["p1"])
    start(api)
    try:
        assert refusal(lambda: capture_state(api, "start", ["p1"])) == (
            "traffic is running: a capture starts with the traffic (start it before)"
        )
        assert refusal(lambda: get_capture(api, "p1")) == (
            "traffic is running: the capture is written when it stops"
        )
    finally:
        from conftest import stop

        stop(api)
    assert len(pcap_records(get_capture(api, "p1"))) > 0
