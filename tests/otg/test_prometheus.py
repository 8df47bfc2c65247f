"""The Prometheus scrape: valid for promtool mid-run, and equal to the
OTG metrics at the end."""

import re
import shutil
import subprocess
import time

import requests

from conftest import flow_metrics, port_metrics, start, wait_stopped


def scrape(server):
    """The classic text format, which promtool checks."""
    r = requests.get(server.location + "/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return r.text


def value(text, name, labels):
    braces = f"\\{{{labels}\\}}" if labels else ""
    m = re.search(rf"^{name}{braces} (\S+)$", text, re.M)
    assert m, f"{name}{{{labels}}} not in\n{text}"
    return float(m.group(1))


def test_a_scrape_mid_run_passes_promtool_and_ends_equal_to_the_run(api, server):
    promtool = shutil.which("promtool")
    assert promtool, "promtool (Debian's prometheus package) is installed by scripts/setup"
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    f = c.flows.flow(name="f1")[-1]
    f.tx_rx.port.tx_name = "p1"
    f.tx_rx.port.rx_names = ["p1"]
    f.metrics.enable = True
    f.metrics.latency.enable = True
    f.size.fixed = 512
    f.rate.pps = 20000
    f.duration.fixed_packets.packets = 40000
    f.packet.ethernet().ipv4().udp()
    api.set_config(c)
    start(api)
    time.sleep(0.8)
    mid = scrape(server)
    assert value(mid, "landspeed_traffic_running", "") == 1.0
    check = subprocess.run([promtool, "check", "metrics"], input=mid, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert 0 < value(mid, "landspeed_flow_tx_frames_total", 'flow="f1"') < 40000
    (m,) = wait_stopped(api)
    end = scrape(server)
    check = subprocess.run([promtool, "check", "metrics"], input=end, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert value(end, "landspeed_flow_tx_frames_total", 'flow="f1"') == m.frames_tx == 40000
    assert value(end, "landspeed_flow_rx_frames_total", 'flow="f1"') == m.frames_rx == 40000
    (p,) = port_metrics(api)
    assert value(end, "landspeed_port_tx_bytes_total", 'port="p1"') == p.bytes_tx == 40000 * 512
    assert value(end, "landspeed_port_rx_frames_total", 'port="p1"') == p.frames_rx
    assert value(end, "landspeed_flow_latency_seconds", 'flow="f1",stat="max"') * 1e9 == m.latency.maximum_ns


def test_prometheus_itself_gets_openmetrics(server):
    r = requests.get(
        server.location + "/metrics",
        headers={"Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"},
    )
    assert r.headers["content-type"] == "application/openmetrics-text; version=1.0.0; charset=utf-8"
    assert r.text == (
        "# HELP landspeed_traffic_running 1 while the engine sends, else 0.\n"
        "# TYPE landspeed_traffic_running gauge\n"
        "landspeed_traffic_running 0.0\n"
        "# EOF\n"
    )
