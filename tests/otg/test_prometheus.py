"""The Prometheus scrape: valid for promtool mid-run, and equal to the
OTG metrics at the end."""

import re
import shutil
import subprocess
import time

import requests

from conftest import flow_metrics, port_metrics, start, stop, wait_stopped


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
    # Two report intervals (500 ms): the lcores' shares of the second.
    time.sleep(1.3)
    mid = scrape(server)
    assert value(mid, "landspeed_traffic_running", "") == 1.0
    for labels in ('role="tx",lcore="1",port="p1"', 'role="rx",lcore="2",port="p1"'):
        assert 0.0 <= value(mid, "landspeed_lcore_descheduled_ratio", labels) <= 1.0
    assert 0.0 < value(mid, "landspeed_lcore_busy_ratio", 'role="rx",lcore="2",port="p1"') <= 1.0
    assert "landspeed_run_complete" not in mid, "no outcome before the run ends"
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
    # The outcome: complete, its target met or not, and as many problems
    # as the stop's warnings name (on this 2-CPU host the lcores share
    # CPUs, so `descheduled` is likely; a clean run has none).
    assert value(end, "landspeed_run_complete", "") == 1.0
    assert value(end, "landspeed_run_target_met", "") in (0.0, 1.0)
    warnings = stop(api).warnings
    problems = re.findall(r'^landspeed_run_problems\{kind="(\w+)"\} (\S+)$', end, re.M)
    assert sum(float(n) for _, n in problems) == len(warnings), (problems, warnings)
    for kind, n in problems:
        if kind == "descheduled":
            assert sum("descheduled" in w for w in warnings) == float(n), warnings
    assert re.search(r'^landspeed_verdict_binding\{limit="\w+"\} 1\.0$', end, re.M), end


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


def test_a_run_serves_its_live_counters(tmp_path):
    """`landspeed run --metrics ADDR`: the run's per-port counters, live."""
    import json
    import os

    from conftest import BINARY, free_port

    profile = tmp_path / "ring.yaml"
    profile.write_text(
        "eal: { cores: [0, 1, 2], cpus: [0, 1, 0], vdevs: [net_ring0] }\n"
        "ports: [ { name: p0, device: net_ring0, link: 10g } ]\n"
        "streams: [ { name: s, frame_size: 1518, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 1, dst: 2 } } ]\n"
        "tx: [ { lcore: 1, port: p0, rate: 20000pps } ]\n"
        "rx: [ { lcore: 2, port: p0 } ]\n"
        "run: { duration: 3s, interval: 200ms }\n"
    )
    port = free_port()
    out = tmp_path / "out.json"
    run = subprocess.Popen(
        [BINARY, "run", str(profile), "-q", "--json", str(out), "--metrics", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        text = None
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                r = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=1)
                running = value(r.text, "landspeed_traffic_running", "") == 1.0
                shares = ("landspeed_lcore_busy_ratio", 'descheduled_ratio{role="tx"')
                if running and all(x in r.text for x in shares):
                    text = r.text
                    break
            except (requests.ConnectionError, AssertionError):
                pass
            time.sleep(0.1)
        assert text, "no scrape while the run sent"
        check = subprocess.run([shutil.which("promtool"), "check", "metrics"], input=text, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        tx = value(text, "landspeed_port_tx_frames_total", 'port="p0"')
        rx = value(text, "landspeed_port_rx_frames_total", 'port="p0"')
        assert value(text, "landspeed_port_tx_bytes_total", 'port="p0"') == tx * 1518
        assert 0 < rx <= tx
        assert 0.0 <= value(text, "landspeed_lcore_descheduled_ratio", 'role="tx",lcore="1",port="p0"') <= 1.0
        assert 0.0 < value(text, "landspeed_lcore_busy_ratio", 'role="rx",lcore="2",port="p0"') <= 1.0
    finally:
        stdout, stderr = run.communicate(timeout=60)
    # 3: the run's figures are doubtful (its lcores shared a CPU here).
    assert run.returncode in (0, 3), stderr
    final = json.loads(out.read_text())
    assert tx < final["tx"]["frames"], "the scrape was taken mid-run"
    assert not os.path.exists(str(out) + ".tmp")


def test_a_run_refuses_a_scrape_address_other_than_loopback():
    from conftest import BINARY

    p = subprocess.run([BINARY, "run", "--metrics", "0.0.0.0:9464", "--duration", "1s"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 or p.returncode == 1
    assert "--metrics 0.0.0.0:9464: only a loopback address" in p.stderr, p.stderr
