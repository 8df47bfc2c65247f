/* Exported, non-inline entry points for DPDK's static-inline fast path.
 * Each wrapper is a one-line pass-through: no logic lives here. */
#ifndef LANDSPEED_SHIM_H
#define LANDSPEED_SHIM_H
#include <stdint.h>
struct rte_mbuf;
struct rte_mempool;

uint16_t ls_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
uint16_t ls_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
int ls_pktmbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n);
uint64_t ls_rdtsc(void);
int ls_errno(void);
uint64_t ls_mbuf_size(void);
uint16_t ls_pktmbuf_headroom(void);
unsigned ls_mempool_in_use_count(const struct rte_mempool *mp);
#endif
