/* SPDX-License-Identifier: MIT */
/*
 * Link and address monitor: a NETLINK_ROUTE socket subscribed to RTNLGRP_LINK,
 * RTNLGRP_IPV4_IFADDR and RTNLGRP_IPV6_IFADDR, nonblocking. The daemon watches
 * mpt_netmon_fd() in its libev loop and calls mpt_netmon_process() when readable;
 * that invokes the callbacks for every message waiting. Link events repeat whenever
 * the kernel reports any change of the link; the callback compares states itself.
 *
 * If the kernel drops notifications (socket buffer overrun), process() returns
 * -ENOBUFS: the caller must re-read the state it cares about with the queries below.
 * The queries use a second, synchronous socket.
 */
#ifndef MPTUND_NETMON_H
#define MPTUND_NETMON_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "pktmeta.h"	/* union mpt_inaddr */

struct nl_sock;

struct mpt_netmon_link {
	int ifindex;
	char name[IFNAMSIZ];
	bool admin_up;			/* IFF_UP */
	bool carrier;			/* IFF_LOWER_UP */
	uint8_t operstate;		/* IF_OPER_* (RFC 2863) */
	bool up;			/* usable: IFF_UP and IFF_RUNNING (oper up) */
	bool deleted;			/* RTM_DELLINK */
};

struct mpt_netmon_addr {
	int ifindex;
	int family;			/* AF_INET or AF_INET6 */
	union mpt_inaddr addr;
	uint8_t plen;
	bool added;			/* false: removed */
};

struct mpt_netmon_ops {
	void (*link)(void *arg, const struct mpt_netmon_link *ev);
	void (*addr)(void *arg, const struct mpt_netmon_addr *ev);
};

struct mpt_netmon {
	struct nl_sock *mon;		/* multicast, nonblocking */
	struct nl_sock *query;		/* synchronous requests */
	struct mpt_netmon_ops ops;
	void *arg;
	int cb_err;
	uint64_t events, overruns;
};

int mpt_netmon_open(struct mpt_netmon *nm, const struct mpt_netmon_ops *ops, void *arg);
void mpt_netmon_close(struct mpt_netmon *nm);
int mpt_netmon_fd(const struct mpt_netmon *nm);
/* Dispatch every waiting notification; 0, -ENOBUFS (state lost: re-query), -errno. */
int mpt_netmon_process(struct mpt_netmon *nm);

/* 1 if the link exists and is up (IFF_UP and IFF_RUNNING), 0 if not, -errno. */
int mpt_netmon_link_is_up(struct mpt_netmon *nm, const char *ifname);
/* 1 if the link has an address of family (AF_INET/AF_INET6, AF_UNSPEC: any), 0 if
 * not, -ENODEV if there is no such link, -errno. IPv6 link-local addresses count
 * only when family is AF_UNSPEC. */
int mpt_netmon_has_addr(struct mpt_netmon *nm, const char *ifname, int family);

#endif
