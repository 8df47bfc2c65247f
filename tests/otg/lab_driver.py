"""Run inside the lab's tester namespace (its loopback is the server's):
two flows across the veth pair, one each way, through snappi; prints
their final flow metrics as JSON."""

import json
import sys
import time

import snappi

from lab_flows import AF, add_flow, wait_for

location, prefix = sys.argv[1], sys.argv[2]
wait_for(location)
api = snappi.api(location=location, verify=False)
c = api.config()
c.ports.port(name="t0", location=f"net_af_packet0,iface={prefix}-t0,{AF}")
c.ports.port(name="t1", location=f"net_af_packet1,iface={prefix}-t1,{AF}")
add_flow(c, "east", "t0", "t1", 5000, False)
add_flow(c, "west", "t1", "t0", 5000, True)
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
