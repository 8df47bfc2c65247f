"""Flows driven by snappi through `landspeed serve`, counted exactly."""

import struct
import time

from conftest import (
    assert_udp_frame,
    flow_metrics,
    ones_complement,
    pcap_records,
    port_metrics,
    start,
    stop,
    wait_stopped,
)


def udp_flow(config, name, tx, rx, packets, pps=20000, size=1518):
    f = config.flows.flow(name=name)[-1]
    f.tx_rx.port.tx_name = tx
    f.tx_rx.port.rx_names = [rx]
    f.metrics.enable = True
    f.metrics.loss = True
    f.metrics.latency.enable = True
    f.size.fixed = size
    f.rate.pps = pps
    f.duration.fixed_packets.packets = packets
    eth, ip, udp = f.packet.ethernet().ipv4().udp()
    stamped_packet(eth, ip, udp)
    return f


def stamped_packet(eth, ip, udp):
    """The Ethernet, IPv4 and UDP headers of udp_flow's packet, the one
    conftest.assert_udp_frame checks."""
    eth.src.value = "02:00:00:00:00:01"
    eth.dst.value = "02:00:00:00:00:02"
    ip.src.value = "198.18.0.1"
    ip.dst.value = "198.19.0.1"
    udp.src_port.increment.start = 1000
    udp.src_port.increment.step = 1
    udp.src_port.increment.count = 10
    udp.dst_port.value = 5001


def test_fixed_packets_back_to_back_on_a_ring(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    udp_flow(c, "f1", "p1", "p1", 5000)
    assert api.set_config(c).warnings == []
    start(api)
    (m,) = wait_stopped(api)
    assert (m.name, m.port_tx, m.port_rx) == ("f1", "p1", "p1")
    assert m.frames_tx == 5000
    assert m.frames_rx == 5000
    assert m.bytes_tx == 5000 * 1518
    assert m.bytes_rx == 5000 * 1518
    assert m.loss == 0.0
    assert 0 < m.latency.minimum_ns <= m.latency.average_ns <= m.latency.maximum_ns
    (p,) = port_metrics(api, ["p1"])
    assert (p.frames_tx, p.frames_rx, p.bytes_tx, p.bytes_rx) == (5000, 5000, 5000 * 1518, 5000 * 1518)
    assert p.link == "up" and p.transmit == "stopped"


def test_two_flows_imix_and_tcp_for_fixed_seconds(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    for name, tcp in (("udp-imix", False), ("tcp-1518", True)):
        f = c.flows.flow(name=name)[-1]
        f.tx_rx.port.tx_name = "p1"
        f.tx_rx.port.rx_names = ["p1"]
        f.metrics.enable = True
        f.rate.pps = 5000
        f.duration.fixed_seconds.seconds = 1
        if tcp:
            f.size.fixed = 1518
            eth, ip6, l4 = f.packet.ethernet().ipv6().tcp()
            ip6.src.value = "2001:db8::1"
            ip6.dst.value = "2001:db8::2"
            l4.src_port.values = [40000, 40001, 40002]
            l4.dst_port.value = 5001
        else:
            f.size.weight_pairs.predefined = "imix"
            eth, ip, l4 = f.packet.ethernet().ipv4().udp()
            l4.dst_port.decrement.start = 6000
            l4.dst_port.decrement.step = 2
            l4.dst_port.decrement.count = 4
        eth.src.value = "02:00:00:00:00:01"
    api.set_config(c)
    start(api)
    fm = wait_stopped(api)
    assert [m.name for m in fm] == ["udp-imix", "tcp-1518"]
    for m in fm:
        # 5000 frames/s for 1 s, give or take the run's edges.
        assert 4500 <= m.frames_tx <= 5500, m
        assert m.frames_rx == m.frames_tx, m
        assert m.bytes_rx == m.bytes_tx, m
        assert m.loss == 0.0
        assert not m._properties.get("latency"), "latency was not asked"
    tcp = fm[1]
    assert tcp.bytes_tx == tcp.frames_tx * 1518
    # IMIX: 64, 570 and 1518 bytes at 7:4:1, twelve frames a turn.
    imix = fm[0]
    turns, rest = divmod(imix.frames_tx, 12)
    turn = [64, 570, 64, 1518, 64, 570, 64, 570, 64, 64, 570, 64]
    assert imix.bytes_tx == turns * sum(turn) + sum(turn[:rest])


def test_the_frames_on_the_wire_carry_the_flow_field_by_field(api, tmp_path):
    pcap = tmp_path / "sent.pcap"
    c = api.config()
    c.ports.port(name="wire", location=f"net_pcap0,tx_pcap={pcap}")
    c.ports.port(name="ring", location="net_ring0")
    udp_flow(c, "f1", "wire", "ring", 25, size=256)
    api.set_config(c)
    start(api)
    (m,) = wait_stopped(api)
    # Sent into the capture file: nothing comes back on the ring.
    assert (m.frames_tx, m.frames_rx, m.loss) == (25, 0, 100.0)
    records = pcap_records(pcap.read_bytes())
    assert len(records) == 25
    for i, (_, length, f) in enumerate(records):
        assert length == len(f) == 256 - 4, "the frame size counts the FCS"
        assert_udp_frame(f, i)


def test_continuous_traffic_stops_when_told(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    f = udp_flow(c, "f1", "p1", "p1", 1)
    f.duration.continuous.gap = 12
    f.rate.pps = 10000
    api.set_config(c)
    start(api)
    import time

    time.sleep(1.0)
    (m,) = flow_metrics(api)
    assert m.transmit == "started"
    assert m.frames_tx > 0
    stop(api)
    (m,) = flow_metrics(api)
    assert m.transmit == "stopped"
    assert m.frames_rx == m.frames_tx > 5000
    assert m.loss == 0.0


def test_two_flows_into_one_port_are_counted_apart_while_they_run(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    for name, pps in (("slow", 2000), ("fast", 8000)):
        f = udp_flow(c, name, "p1", "p1", 1, pps=pps, size=256)
        f.duration.continuous.gap = 12
    api.set_config(c)
    start(api)
    import time

    time.sleep(1.6)
    slow, fast = flow_metrics(api, ["slow", "fast"])
    (p,) = port_metrics(api, ["p1"])
    assert slow.transmit == fast.transmit == "started"
    # Each flow's own count, live: the port receives both.
    assert 0 < slow.frames_rx <= slow.frames_tx + 2000
    assert 0 < fast.frames_rx <= fast.frames_tx + 8000
    assert fast.frames_rx > 2 * slow.frames_rx, (slow, fast)
    assert slow.bytes_rx == slow.frames_rx * 256 and fast.bytes_rx == fast.frames_rx * 256
    assert slow.frames_rx + fast.frames_rx <= p.frames_rx + 10000
    assert fast.frames_rx_rate > 0
    stop(api)
    slow, fast = flow_metrics(api, ["slow", "fast"])
    for m in (slow, fast):
        assert m.frames_rx == m.frames_tx > 0 and m.loss == 0.0, m


def test_random_sizes_and_arrival_timestamps(api):
    c = api.config()
    c.ports.port(name="p1", location="net_ring0")
    f = udp_flow(c, "f1", "p1", "p1", 3000)
    f.size.random.min, f.size.random.max = 100, 1500
    f.metrics.timestamps = True
    assert api.set_config(c).warnings == []
    before = time.time_ns()
    start(api)
    (m,) = wait_stopped(api)
    after = time.time_ns()
    assert m.frames_tx == m.frames_rx == 3000
    assert m.bytes_tx == m.bytes_rx
    # 3000 sizes drawn from 100..1500: their mean lies near 800, and every
    # run draws the same ones.
    assert 700 * 3000 < m.bytes_rx < 900 * 3000, m.bytes_rx
    first, last = m.timestamps.first_timestamp_ns, m.timestamps.last_timestamp_ns
    assert before < first < last < after, (before, first, last, after)
    # 3000 frames at 20,000 frames/s: 150 ms from the first to the last.
    assert 0.1e9 < last - first < 1e9, last - first
    c2 = api.config()
    c2.deserialize(c.serialize())
    api.set_config(c2)
    start(api)
    (again,) = wait_stopped(api)
    assert again.bytes_rx == m.bytes_rx, "the same seed, the same sizes"


def vxlan_flow(config, name, tx, rx, packets, size=1518):
    """A flow of UDP packets in VXLAN, behind an 802.1ad and an 802.1Q
    tag and an MPLS label: the stamped packet is udp_flow's."""
    f = config.flows.flow(name=name)[-1]
    f.tx_rx.port.tx_name = tx
    f.tx_rx.port.rx_names = [rx]
    f.metrics.enable = True
    f.metrics.loss = True
    f.size.fixed = size
    f.rate.pps = 20000
    f.duration.fixed_packets.packets = packets
    eth, stag, ctag, label, oip, oudp, vx, ieth, ip, udp = (
        f.packet.ethernet().vlan().vlan().mpls().ipv4().udp().vxlan().ethernet().ipv4().udp()
    )
    eth.src.value = "02:00:00:00:00:0a"
    eth.dst.value = "02:00:00:00:00:0b"
    stag.tpid.value = 0x88A8
    stag.id.value = 100
    ctag.id.value = 200
    label.label.value = 1000
    oip.src.value = "192.0.2.1"
    oip.dst.value = "192.0.2.2"
    oudp.src_port.value = 50000
    oudp.dst_port.value = 4789
    vx.vni.value = 4096
    stamped_packet(ieth, ip, udp)
    return f


def test_vxlan_behind_tags_and_a_label_is_sent_right_and_counted(api, tmp_path):
    pcap = tmp_path / "sent.pcap"
    c = api.config()
    c.ports.port(name="wire", location=f"net_pcap0,tx_pcap={pcap}")
    c.ports.port(name="ring", location="net_ring0")
    vxlan_flow(c, "vx", "wire", "ring", 25, size=256)
    vxlan_flow(c, "vx-ring", "ring", "ring", 3000)
    assert api.set_config(c).warnings == []
    start(api)
    wire, ring = wait_stopped(api)
    assert (wire.frames_tx, wire.frames_rx) == (25, 0)
    # Around the ring, every frame is found under its tunnel and counted.
    assert (ring.frames_tx, ring.frames_rx, ring.loss) == (3000, 3000, 0.0)
    assert ring.bytes_rx == 3000 * 1518
    records = pcap_records(pcap.read_bytes())
    assert len(records) == 25
    for i, (_, length, f) in enumerate(records):
        assert length == len(f) == 256 - 4
        assert f[12:16] == bytes.fromhex("88a8") + struct.pack("!H", 100)
        assert f[16:20] == bytes.fromhex("8100") + struct.pack("!H", 200)
        assert f[20:22] == bytes.fromhex("8847")
        # Label 1000, TC 0, bottom of stack, TTL 64.
        assert f[22:26] == struct.pack("!I", 1000 << 12 | 1 << 8 | 64)
        oip = f[26:46]
        assert oip[0] == 0x45 and oip[9] == 17
        assert ones_complement(oip) == 0xFFFF, "outer IPv4 header checksum"
        assert struct.unpack("!H", oip[2:4])[0] == len(f) - 26
        oudp = f[46:]
        sport, dport, ulen, csum = struct.unpack("!HHHH", oudp[:8])
        assert (sport, dport, ulen) == (50000, 4789, len(oudp))
        assert csum != 0
        pseudo = oip[12:20] + struct.pack("!BBH", 0, 17, ulen)
        assert ones_complement(pseudo + oudp) == 0xFFFF, "outer UDP checksum"
        assert oudp[8:16] == bytes.fromhex("08000000") + struct.pack("!I", 4096 << 8)
        assert_udp_frame(oudp[16:], i)
