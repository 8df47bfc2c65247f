/* Exported, non-inline entry points for DPDK's static-inline fast path.
 * Each wrapper is a one-line pass-through: no logic lives here. */
#ifndef LANDSPEED_SHIM_H
#define LANDSPEED_SHIM_H
#include <stdint.h>
struct rte_mbuf;
struct rte_mempool;
struct rte_ring;

uint16_t ls_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
uint16_t ls_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
int ls_pktmbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n);
int ls_mempool_get_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n);
uint64_t ls_rdtsc(void);
int ls_errno(void);
uint64_t ls_mbuf_size(void);
uint16_t ls_pktmbuf_headroom(void);
unsigned ls_mempool_in_use_count(const struct rte_mempool *mp);

/* External buffers (TX payloads attached from a shared fill pattern) and
 * the IOVA-contiguous memory they live in. */
struct rte_mbuf_ext_shared_info;
struct rte_memzone;
void ls_pktmbuf_attach_extbuf(struct rte_mbuf *m, void *buf_addr, uint64_t buf_iova,
			      uint16_t buf_len, struct rte_mbuf_ext_shared_info *shinfo);
uint16_t ls_mbuf_ext_refcnt_update(struct rte_mbuf_ext_shared_info *shinfo, int16_t value);
const struct rte_memzone *ls_memzone_reserve_contig(const char *name, uint64_t len, int socket,
						    unsigned align);
int ls_memzone_free(const struct rte_memzone *mz);
void *ls_memzone_addr(const struct rte_memzone *mz);
uint64_t ls_memzone_iova(const struct rte_memzone *mz);
struct rte_ring *ls_ring_create(const char *name, unsigned count, int socket);
void ls_ring_free(struct rte_ring *r);
unsigned ls_ring_dequeue_burst(struct rte_ring *r, void **objs, unsigned n);
int ls_eth_from_rings(const char *name, struct rte_ring *const rx[], unsigned nb_rx,
		      struct rte_ring *const tx[], unsigned nb_tx, unsigned socket);
#endif
