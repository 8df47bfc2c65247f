/* See shim.h. Compiled with the full `pkg-config --cflags libdpdk` set. */
#include <rte_config.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
#include <rte_mempool.h>
#include <rte_mbuf.h>
#include <rte_ethdev.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_eth_ring.h>
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

int ls_mempool_get_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n)
{
	return rte_mempool_get_bulk(mp, (void **)pkts, n);
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

void ls_pktmbuf_attach_extbuf(struct rte_mbuf *m, void *buf_addr, uint64_t buf_iova,
			      uint16_t buf_len, struct rte_mbuf_ext_shared_info *shinfo)
{
	rte_pktmbuf_attach_extbuf(m, buf_addr, buf_iova, buf_len, shinfo);
}

uint16_t ls_mbuf_ext_refcnt_update(struct rte_mbuf_ext_shared_info *shinfo, int16_t value)
{
	return rte_mbuf_ext_refcnt_update(shinfo, value);
}

const struct rte_memzone *ls_memzone_reserve_contig(const char *name, uint64_t len, int socket,
						    unsigned align)
{
	return rte_memzone_reserve_aligned(name, len, socket, RTE_MEMZONE_IOVA_CONTIG, align);
}

int ls_memzone_free(const struct rte_memzone *mz)
{
	return rte_memzone_free(mz);
}

void *ls_memzone_addr(const struct rte_memzone *mz)
{
	return mz->addr;
}

uint64_t ls_memzone_iova(const struct rte_memzone *mz)
{
	return mz->iova;
}

/* Single producer (one TX queue's lcore), single consumer (one RX
 * queue's lcore). */
struct rte_ring *ls_ring_create(const char *name, unsigned count, int socket)
{
	return rte_ring_create(name, count, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
}

void ls_ring_free(struct rte_ring *r)
{
	rte_ring_free(r);
}

unsigned ls_ring_dequeue_burst(struct rte_ring *r, void **objs, unsigned n)
{
	return rte_ring_dequeue_burst(r, objs, n, NULL);
}

int ls_eth_from_rings(const char *name, struct rte_ring *const rx[], unsigned nb_rx,
		      struct rte_ring *const tx[], unsigned nb_tx, unsigned socket)
{
	return rte_eth_from_rings(name, rx, nb_rx, tx, nb_tx, socket);
}
