/* SPDX-License-Identifier: MIT */
/*
 * Source address pinning on a socket bound to a wildcard or multi-homed address: the
 * local address a datagram arrived on (IP_PKTINFO, IPV6_PKTINFO; an IPv6 socket
 * reports IPv4 datagrams with a v4-mapped address) and replies sent from it, so that
 * a peer behind a strict NAT or firewall sees them come from the address it talks to.
 */
#ifndef MPTUND_UDP_LOCAL_H
#define MPTUND_UDP_LOCAL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct mpt_local {
	int family;			/* 0: unknown (the kernel picks the source);
					 * AF_INET (IP_PKTINFO) or AF_INET6 (IPV6_PKTINFO) */
	int ifindex;			/* the interface it arrived on */
	struct in6_addr addr;		/* AF_INET: the IPv4 address in s6_addr[0..3] */
};

/* Room for the control message mpt_local_cmsg writes. */
#define MPT_LOCAL_CMSG_SPACE	CMSG_SPACE(sizeof(struct in6_pktinfo))

/* Ask the kernel for the local address of each datagram received on fd. 0 or -errno. */
int mpt_local_enable(int fd, int family);
/* The local address from a received message's control data; family 0 when absent. */
void mpt_local_from_msg(struct msghdr *mh, struct mpt_local *l);
bool mpt_local_equal(const struct mpt_local *a, const struct mpt_local *b);
/* Write the control message that sends from l into buf (cap bytes, at least
 * MPT_LOCAL_CMSG_SPACE, zeroed by the caller); returns its length, 0 when l is
 * unknown. */
size_t mpt_local_cmsg(const struct mpt_local *l, void *buf, size_t cap);
/*
 * Whether err (-errno), a send from l that failed, says l is no longer an address of
 * ours (removed by the admin or a DHCP change, or only routed to us): IPv6 refuses
 * the IPV6_PKTINFO source with EINVAL (ipv6_chk_addr in datagram_send_ctl), IPv4's
 * route lookup by source (also v4-mapped) with ENETUNREACH, a bind with
 * EADDRNOTAVAIL. ENETUNREACH is also "no route to the peer": a second send from the
 * kernel's choice of source tells the two apart.
 */
bool mpt_local_refused(const struct mpt_local *l, int err);
/* mpt_local_sendto's result when l refused (mpt_local_refused) and the datagram left
 * from the kernel's choice of source instead. */
#define MPT_LOCAL_UNPINNED	1
/* sendto from l (a plain sendto when l is NULL or unknown). 0, MPT_LOCAL_UNPINNED
 * (sent, but not from l), or -errno. */
int mpt_local_sendto(int fd, const void *buf, size_t len, const struct sockaddr *to,
		     socklen_t tolen, const struct mpt_local *l);
/* "10.1.1.5%3" or "-" when unknown. */
void mpt_local_format(const struct mpt_local *l, char *buf, size_t len);

#endif
