"""Fixtures for the OTG suite: a `landspeed serve` on a free loopback port,
driven by the unmodified `snappi` client from PyPI."""

import os
import socket
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
