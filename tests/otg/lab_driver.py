"""Run inside the lab's tester namespace (its loopback is the server's):
two flows across the veth pair, one each way, through snappi; prints
their final flow metrics as JSON."""

import json
import sys
import time

import requests
import snappi

location, prefix = sys.argv[1], sys.argv[2]
for _ in range(200):  # the server is starting beside us
    try:
        requests.get(location + "/capabilities/version", timeout=1)
        break
    except requests.ConnectionError:
        time.sleep(0.05)
api = snappi.api(location=location, verify=False)
c = api.config()
af = "framesz=2048,blocksz=4096,framecnt=1024,qdisc_bypass=1"
c.ports.port(name="t0", location=f"net_af_packet0,iface={prefix}-t0,{af}")
c.ports.port(name="t1", location=f"net_af_packet1,iface={prefix}-t1,{af}")
for name, tx, rx, v6 in (("east", "t0", "t1", False), ("west", "t1", "t0", True)):
    f = c.flows.flow(name=name)[-1]
    f.tx_rx.port.tx_name = tx
    f.tx_rx.port.rx_names = [rx]
    f.metrics.enable = True
    f.metrics.latency.enable = True
    f.size.fixed = 1518
    f.rate.pps = 5000
    f.duration.fixed_packets.packets = 5000
    if v6:
        eth, ip, l4 = f.packet.ethernet().ipv6().tcp()
        ip.src.value, ip.dst.value = "2001:2::2", "2001:2::1"
    else:
        eth, ip, l4 = f.packet.ethernet().ipv4().udp()
        ip.src.value, ip.dst.value = "198.18.0.1", "198.18.0.2"
    eth.src.value, eth.dst.value = "02:00:00:00:00:01", "02:00:00:00:00:02"
    l4.src_port.increment.start, l4.src_port.increment.count = 49152, 16
    l4.dst_port.value = 5001
api.set_config(c)
cs = api.control_state()
cs.traffic.flow_transmit.state = cs.traffic.flow_transmit.START
api.set_control_state(cs)
deadline = time.time() + 60
while time.time() < deadline:
    r = api.metrics_request()
    r.flow.flow_names = []
    fm = api.get_metrics(r).flow_metrics
    if all(m.transmit == "stopped" for m in fm):
        break
    time.sleep(0.2)
print(json.dumps([json.loads(m.serialize()) for m in fm]))
