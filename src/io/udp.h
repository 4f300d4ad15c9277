/* SPDX-License-Identifier: MIT */
/*
 * UDP sends on the tunnel's sockets, which ask for ICMP errors (IP_RECVERR /
 * IPV6_RECVERR, path.c) so that a router's "packet too big" reaches path MTU discovery.
 * On such a socket the kernel also leaves an ICMP error about an earlier datagram
 * pending (sk_err), and the next send on the socket fails with it: EMSGSIZE after a
 * "too big", ECONNREFUSED after a port unreachable, whatever that send's own datagram
 * and destination (on the anchor's shared socket: another UE's). The error itself waits
 * in the socket's error queue for the receive side (rx.c). These sends try once more
 * when a send fails that way; a second failure is the send's own.
 */
#ifndef MPTUND_UDP_H
#define MPTUND_UDP_H

#include <sys/socket.h>
#include <sys/types.h>

/* sendto(2), MSG_DONTWAIT. Returns bytes sent, or -errno. */
ssize_t mpt_udp_sendto(int fd, const void *buf, size_t len, const struct sockaddr *to,
		       socklen_t tolen);
/* sendmsg(2), MSG_DONTWAIT. Returns bytes sent, or -errno. */
ssize_t mpt_udp_sendmsg(int fd, const struct msghdr *mh);
/* sendmmsg(2), MSG_DONTWAIT. Returns messages sent, or -errno. */
int mpt_udp_sendmmsg(int fd, struct mmsghdr *v, unsigned n);

#endif
