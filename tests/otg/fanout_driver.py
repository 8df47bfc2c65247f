"""Run inside the lab's namespace a, beside the server the client talks
to (on its loopback): flows between port a (here) and port b (on the
server in namespace b, reached over the control link), through snappi.
Prints what the mode asks for as JSON.

    fanout_driver.py URL PREFIX PEER fixed|continuous|refused
"""

import json
import sys
import time

import requests
import snappi
import yaml

from lab_flows import AF, add_flow, wait_for

url, prefix, peer, mode = sys.argv[1:5]
wait_for(url)
api = snappi.api(location=url, verify=False)


def config(flows):
    c = api.config()
    c.ports.port(name="a", location=f"net_af_packet0,iface={prefix}-a0,{AF}")
    c.ports.port(name="b", location=f"{peer};net_af_packet0,iface={prefix}-b0,{AF}")
    for flow in flows:
        add_flow(c, *flow)
    return c


def control(state):
    cs = api.control_state()
    cs.traffic.flow_transmit.state = state
    return api.set_control_state(cs).warnings


def flows():
    r = api.metrics_request()
    r.flow.flow_names = []
    return [json.loads(m.serialize()) for m in api.get_metrics(r).flow_metrics]


def ports():
    r = api.metrics_request()
    r.port.port_names = []
    return [json.loads(m.serialize()) for m in api.get_metrics(r).port_metrics]


def until_stopped(limit):
    deadline = time.time() + limit
    while time.time() < deadline:
        fm = flows()
        if all(m["transmit"] == "stopped" for m in fm):
            return fm
        time.sleep(0.2)
    raise SystemExit("the flows did not stop")


out = {}
if mode == "refused":
    try:
        api.set_config(config([("east", "a", "b", 10, False)]))
        out["error"] = None
    except Exception as e:  # snappi raises the server's OTG error, as YAML
        out["error"] = "; ".join(yaml.safe_load(str(e))["errors"])
elif mode == "fixed":
    out["set"] = api.set_config(config([("east", "a", "b", 5000, False), ("west", "b", "a", 3000, True)])).warnings
    t = time.time()
    out["start"] = control("start")
    out["start_s"] = time.time() - t
    out["mid"] = flows()
    out["flows"] = until_stopped(60)
    out["ports"] = ports()
    out["scrape"] = requests.get(url + "/metrics", timeout=30).text
    out["stop"] = control("stop")
elif mode == "continuous":
    api.set_config(config([("east", "a", "b", None, False)]))
    control("start")
    time.sleep(1.5)
    out["mid"] = flows()
    out["stop"] = control("stop")
    out["flows"] = flows()
print(json.dumps(out))
