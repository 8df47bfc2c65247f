"""What `landspeed serve` refuses, and how exactly."""

import subprocess

import pytest
import requests

from conftest import BINARY, Server, start, stop


def refusal(call):
    """The errors of the OTG error a snappi call raised, as one text."""
    with pytest.raises(Exception) as e:
        call()
    err = e.value.args[0]
    assert err.code == 400 or err.code == 409, err
    return "\n".join(err.errors)


def ring_config(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    f = c.flows.flow(name="f1")[-1]
    f.tx_rx.port.tx_name = "p1"
    f.tx_rx.port.rx_names = ["p1"]
    f.rate.pps = 1000
    f.duration.continuous.gap = 12
    f.packet.ethernet().ipv4().udp()
    return c, f


def test_an_unsupported_header_is_refused_by_its_path(api, server):
    c, f = ring_config(api)
    f.packet.clear()
    f.packet.ethernet().ipv4().gtpv1()
    r = requests.post(server.location + "/config", data=c.serialize(), headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.json() == {
        "code": 400,
        "kind": "validation",
        "errors": ["flows[0].packet[2].choice: gtpv1 is not supported"],
    }
    # And through snappi, which raises with the same text.
    assert "flows[0].packet[2].choice: gtpv1 is not supported" in refusal(lambda: api.set_config(c))


@pytest.mark.parametrize(
    "edit, error",
    [
        (lambda f: setattr(f.duration.burst, "packets", 10), "flows[0].duration.choice: burst is not supported"),
        (lambda f: (setattr(f.size.random, "min", 1500), setattr(f.size.random, "max", 100)), "flows[0].size.random: min 1500 is above max 100"),
        (lambda f: f.tx_rx.port.rx_names.append("p2"), "flows[0].tx_rx.port.rx_names: p2 is no port of the config"),
    ],
)
def test_what_landspeed_does_not_do_is_named(api, edit, error):
    c, f = ring_config(api)
    edit(f)
    assert error in refusal(lambda: api.set_config(c))


def test_two_stepping_fields_are_refused(api):
    c, f = ring_config(api)
    ip, udp = f.packet[1], f.packet[2]
    ip.dst.increment.start = "198.19.0.1"
    ip.dst.increment.count = 4
    udp.src_port.values = [1, 2]
    assert (
        "flows[0].packet[2].udp.src_port: a second stepping field (after flows[0].packet[1].ipv4.dst) "
        "is not supported" in refusal(lambda: api.set_config(c))
    )


def test_malformed_json_gets_the_otg_error_shape(server):
    r = requests.post(server.location + "/config", data=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    body = r.json()
    assert body["code"] == 400 and body["kind"] == "validation"
    assert body["errors"][0].startswith("the request body is not JSON: ")


def test_a_body_above_the_limit_is_refused(server):
    r = requests.post(server.location + "/config", data=b" " * (5 * 1024 * 1024), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_set_config_while_traffic_runs_is_refused(api):
    c, _ = ring_config(api)
    api.set_config(c)
    start(api)
    try:
        assert "traffic is running: stop it before setting a config" in refusal(lambda: api.set_config(c))
    finally:
        stop(api)
    api.set_config(c)


def test_a_request_without_the_token_gets_401_and_starts_nothing(tmp_path):
    token = tmp_path / "token"
    token.write_text("0123456789abcdef0123\n")
    s = Server("--tls", "--token-file", str(token))
    try:
        api = s.api()
        c, _ = ring_config(api)
        for headers in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}):
            r = requests.post(s.location + "/config", data=c.serialize(), verify=False,
                              headers={"Content-Type": "application/json", **headers})
            assert r.status_code == 401
            assert r.json()["errors"] == ["a bearer token is required (Authorization: Bearer …)"]
        # snappi has no option for headers: its session carries them.
        api._transport._session.headers["Authorization"] = "Bearer 0123456789abcdef0123"
        assert api.set_config(c).warnings == []
        assert api.get_config().ports[0].location == "net_ring0"
    finally:
        s.stop()


def test_a_non_loopback_address_needs_a_token():
    p = subprocess.run([BINARY, "serve", "--listen", "0.0.0.0:0"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1
    assert p.stderr == (
        "landspeed: error: --listen 0.0.0.0:0: an address other than loopback needs "
        "--token-file (and serves HTTPS only)\n"
    )


def run_binary(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60)


def test_a_token_file_that_cannot_serve_is_refused(tmp_path):
    short = tmp_path / "short"
    short.write_text("tooshort\n")
    p = run_binary("serve", "--token-file", str(short))
    assert p.returncode == 1
    assert p.stderr == (
        f"landspeed: error: --token-file {short}: the token on its first line must have "
        "at least 16 characters\n"
    )
    missing = tmp_path / "missing"
    p = run_binary("serve", "--token-file", str(missing))
    assert p.returncode == 1
    assert p.stderr == (
        f"landspeed: error: --token-file {missing}: No such file or directory (os error 2)\n"
    )


def test_the_fan_out_options_are_checked(tmp_path):
    short = tmp_path / "short"
    short.write_text("tooshort\n")
    empty = tmp_path / "empty.pem"
    empty.write_text("")
    for args, error in (
        (("--fanout-lead", "0.1"), "--fanout-lead 0.1: from 0.5 to 600 seconds"),
        (("--fanout-lead", "601"), "--fanout-lead 601: from 0.5 to 600 seconds"),
        (("--clock-error", "soon"), "--clock-error soon: `soon` is not a duration; write e.g. 10s, 500ms, 2m, 1h, 1.5s"),
        (("--peer-token-file", str(short)), f"--peer-token-file {short}: the token on its first line must have at least 16 characters"),
        (("--peer-cert", str(empty)), f"--peer-cert {empty}: holds no certificate"),
    ):
        p = run_binary("serve", "--listen", "127.0.0.1:0", *args)
        assert (p.returncode, p.stderr) == (1, f"landspeed: error: {error}\n"), args


def test_a_certificate_needs_its_key():
    p = run_binary("serve", "--cert", "server.pem")
    assert p.returncode == 2
    assert "the following required arguments were not provided:\n  --key <KEY>" in p.stderr


def test_json_stream_and_quiet_exclude_each_other():
    p = run_binary("run", "--json-stream", "-q")
    assert p.returncode == 2
    assert "the argument '--json-stream' cannot be used with '--quiet'" in p.stderr


def test_a_scrape_address_in_use_is_refused_before_the_run():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        p = run_binary("run", "--metrics", f"127.0.0.1:{port}", "--duration", "1s")
    assert p.returncode == 1
    assert p.stderr == (
        f"landspeed: error: --metrics 127.0.0.1:{port}: Address already in use (os error 98)\n"
    )
