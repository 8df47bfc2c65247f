/* See shim.h. Compiled with the full `pkg-config --cflags libdpdk` set. */
#include <rte_config.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
#include <rte_mempool.h>
#include <rte_mbuf.h>
#include <rte_ethdev.h>
#include "shim.h"

uint16_t ls_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(port, queue, pkts, n);
}

uint16_t ls_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(port, queue, pkts, n);
}

int ls_pktmbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n)
{
	return rte_pktmbuf_alloc_bulk(mp, pkts, n);
}

uint64_t ls_rdtsc(void)
{
	return rte_rdtsc();
}

int ls_errno(void)
{
	return rte_errno;
}

uint64_t ls_mbuf_size(void)
{
	return sizeof(struct rte_mbuf);
}

uint16_t ls_pktmbuf_headroom(void)
{
	return RTE_PKTMBUF_HEADROOM;
}

unsigned ls_mempool_in_use_count(const struct rte_mempool *mp)
{
	return rte_mempool_in_use_count(mp);
}
