/* DPDK flags defined with function-like macros (RTE_BIT64(n), 1ULL << n),
 * which bindgen's macro parser cannot evaluate. Each is restated here as a
 * `static const` initialised from the header's own macro: clang evaluates
 * the initialiser and bindgen emits it as a Rust `const`, so the values in
 * the bindings are the installed headers' values, never a copy by hand.
 * Read by bindgen only (through wrapper.h). */
#ifndef LANDSPEED_FLAGS_H
#define LANDSPEED_FLAGS_H
#include <stdint.h>
#include <rte_mbuf_core.h>
#include <rte_ethdev.h>

static const uint64_t LS_MBUF_F_RX_L4_CKSUM_BAD = RTE_MBUF_F_RX_L4_CKSUM_BAD;
static const uint64_t LS_MBUF_F_RX_IP_CKSUM_BAD = RTE_MBUF_F_RX_IP_CKSUM_BAD;
static const uint64_t LS_MBUF_F_RX_IP_CKSUM_GOOD = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
static const uint64_t LS_MBUF_F_RX_L4_CKSUM_GOOD = RTE_MBUF_F_RX_L4_CKSUM_GOOD;
static const uint64_t LS_MBUF_F_TX_TCP_CKSUM = RTE_MBUF_F_TX_TCP_CKSUM;
static const uint64_t LS_MBUF_F_TX_UDP_CKSUM = RTE_MBUF_F_TX_UDP_CKSUM;
static const uint64_t LS_MBUF_F_TX_IP_CKSUM = RTE_MBUF_F_TX_IP_CKSUM;
static const uint64_t LS_MBUF_F_TX_IPV4 = RTE_MBUF_F_TX_IPV4;
static const uint64_t LS_MBUF_F_TX_IPV6 = RTE_MBUF_F_TX_IPV6;

static const uint64_t LS_ETH_RX_OFFLOAD_IPV4_CKSUM = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
static const uint64_t LS_ETH_RX_OFFLOAD_UDP_CKSUM = RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
static const uint64_t LS_ETH_RX_OFFLOAD_TCP_CKSUM = RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
static const uint64_t LS_ETH_RX_OFFLOAD_SCATTER = RTE_ETH_RX_OFFLOAD_SCATTER;
static const uint64_t LS_ETH_TX_OFFLOAD_IPV4_CKSUM = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
static const uint64_t LS_ETH_TX_OFFLOAD_UDP_CKSUM = RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
static const uint64_t LS_ETH_TX_OFFLOAD_TCP_CKSUM = RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
static const uint64_t LS_ETH_TX_OFFLOAD_MULTI_SEGS = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
static const uint64_t LS_ETH_TX_OFFLOAD_MBUF_FAST_FREE = RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
static const uint32_t LS_ETH_MQ_RX_RSS_FLAG = RTE_ETH_MQ_RX_RSS_FLAG;
static const uint64_t LS_ETH_RSS_IP = RTE_ETH_RSS_IP;
static const uint64_t LS_ETH_RSS_UDP = RTE_ETH_RSS_UDP;
static const uint64_t LS_ETH_RSS_TCP = RTE_ETH_RSS_TCP;
static const uint64_t LS_MBUF_F_RX_IP_CKSUM_MASK = RTE_MBUF_F_RX_IP_CKSUM_MASK;
static const uint64_t LS_MBUF_F_RX_L4_CKSUM_MASK = RTE_MBUF_F_RX_L4_CKSUM_MASK;
static const uint64_t LS_MBUF_F_RX_IP_CKSUM_NONE = RTE_MBUF_F_RX_IP_CKSUM_NONE;
static const uint64_t LS_MBUF_F_RX_L4_CKSUM_NONE = RTE_MBUF_F_RX_L4_CKSUM_NONE;
static const uint64_t LS_ETH_RX_OFFLOAD_TIMESTAMP = RTE_ETH_RX_OFFLOAD_TIMESTAMP;
static const uint64_t LS_MBUF_F_TX_IEEE1588_TMST = RTE_MBUF_F_TX_IEEE1588_TMST;
#endif
