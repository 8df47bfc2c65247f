"""What the lab drivers share (they run inside a lab namespace, beside
the server): waiting for the server, and a 1518-byte flow across the
lab's veth pair, UDP/IPv4 one way and TCP/IPv6 the other."""

import time

import requests

AF = "framesz=2048,blocksz=4096,framecnt=1024,qdisc_bypass=1"


def wait_for(url):
    for _ in range(200):  # the server is starting beside us
        try:
            requests.get(url + "/capabilities/version", timeout=1)
            return
        except requests.ConnectionError:
            time.sleep(0.05)


def add_flow(c, name, tx, rx, packets, v6):
    """A flow at 5000 frames/s with metrics, latency and timestamps: `packets` frames,
    or continuous when None."""
    f = c.flows.flow(name=name)[-1]
    f.tx_rx.port.tx_name = tx
    f.tx_rx.port.rx_names = [rx]
    f.metrics.enable = True
    f.metrics.latency.enable = True
    f.metrics.timestamps = True
    f.size.fixed = 1518
    f.rate.pps = 5000
    if packets:
        f.duration.fixed_packets.packets = packets
    else:
        f.duration.continuous.gap = 12
    if v6:
        eth, ip, l4 = f.packet.ethernet().ipv6().tcp()
        ip.src.value, ip.dst.value = "2001:2::2", "2001:2::1"
    else:
        eth, ip, l4 = f.packet.ethernet().ipv4().udp()
        ip.src.value, ip.dst.value = "198.18.0.1", "198.18.0.2"
    eth.src.value, eth.dst.value = "02:00:00:00:00:01", "02:00:00:00:00:02"
    l4.src_port.increment.start, l4.src_port.increment.count = 49152, 16
    l4.dst_port.value = 5001
