/* SPDX-License-Identifier: MIT */
/*
 * The TUN device: /dev/net/tun with IFF_TUN | IFF_NO_PI (raw IP packets, one per
 * read/write), single queue, nonblocking, not persistent. With offload (mptund.conf(5)
 * TunOffload, the default) also IFF_VNET_HDR and TUNSETOFFLOAD (checksum, TSO4/6 with
 * ECN, and USO4/6 where the kernel has it): a read may return a TCP or UDP super-packet
 * of up to 64 KiB behind a virtio-net header, which the caller cuts up (proto/gso.h);
 * writes carry a zero header (no GSO, checksums complete) or, through
 * mpt_tun_write_vnet, a TCP super-packet coalesced by proto/gro.h. When the kernel refuses the
 * offloads the device is opened as without them (logged at info level). Link, address and route
 * configuration go through libnl-route-3 (RTM_NEWLINK/NEWADDR/NEWROUTE), never
 * through a shell.
 *
 * mpt_tun_close() removes the routes and addresses this struct added, then closes
 * the descriptor, which deletes the (non-persistent) device. After the daemon drops
 * privileges the removals may fail with EPERM (logged at debug level); closing still
 * deletes the device and the kernel takes its addresses and routes with it.
 *
 * Errors are logged with the device name, the value and strerror, and returned as
 * -errno.
 */
#ifndef MPTUND_TUN_H
#define MPTUND_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "gso.h"

struct nl_sock;

struct mpt_tun {
	int fd;				/* nonblocking; -1 when closed */
	int ifindex;
	char name[IFNAMSIZ];		/* as the kernel named it */
	uint32_t mtu;
	bool vnet;			/* every read and write has a virtio-net header */
	unsigned offload;		/* TUN_F_* the kernel accepted */
	struct nl_sock *nl;		/* route socket for configuration */
	struct mpt_prefix addrs[MPT_MAX_ADDRS];	/* added by us, removed at close */
	unsigned naddrs;
	struct mpt_prefix routes[MPT_MAX_ROUTES];
	unsigned nroutes;
};

/* name: "" or a template such as "mpt%d" lets the kernel choose. mtu 0: leave it. */
int mpt_tun_open(struct mpt_tun *t, const char *name, uint32_t mtu, bool offload);
int mpt_tun_set_mtu(struct mpt_tun *t, uint32_t mtu);
/* Address with its prefix length (the kernel adds the prefix route). */
int mpt_tun_add_addr(struct mpt_tun *t, const struct mpt_prefix *addr);
/* Route to a prefix through the device (main table, scope link, proto static). */
int mpt_tun_add_route(struct mpt_tun *t, const struct mpt_prefix *dst);
int mpt_tun_up(struct mpt_tun *t);
int mpt_tun_down(struct mpt_tun *t);
void mpt_tun_close(struct mpt_tun *t);

/* One packet (with vnet: a super-packet, its header in *vh; without: *vh zeroed);
 * -EAGAIN when none is ready / the queue is full, else -errno. */
ssize_t mpt_tun_read(struct mpt_tun *t, struct mpt_vnet_hdr *vh, void *buf, size_t len);
ssize_t mpt_tun_write(struct mpt_tun *t, const void *pkt, size_t len);
/* With vnet only: pkt behind the header *vh (a GSO super-packet); -EINVAL without. */
ssize_t mpt_tun_write_vnet(struct mpt_tun *t, const struct mpt_vnet_hdr *vh, const void *pkt,
			   size_t len);

#endif
