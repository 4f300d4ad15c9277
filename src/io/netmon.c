// SPDX-License-Identifier: MIT
/* Link and address monitor over rtnetlink multicast groups; see netmon.h. */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "log.h"
#include "netmon.h"
#include "nlerr.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000		/* linux/if.h; glibc's net/if.h lacks it */
#endif

#define NETMON_RCVBUF	(1 << 20)	/* bursts of address events at start-up */

struct parse_ctx {
	struct mpt_netmon *nm;
	int type;			/* RTM_* of the message being parsed */
};

static void link_from_obj(struct rtnl_link *l, struct mpt_netmon_link *ev)
{
	unsigned flags = rtnl_link_get_flags(l);
	const char *name = rtnl_link_get_name(l);

	memset(ev, 0, sizeof(*ev));
	ev->ifindex = rtnl_link_get_ifindex(l);
	if (name)
		snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->admin_up = flags & IFF_UP;
	ev->carrier = flags & IFF_LOWER_UP;
	ev->operstate = rtnl_link_get_operstate(l);
	ev->up = (flags & IFF_UP) && (flags & IFF_RUNNING);
}

static bool addr_from_obj(struct rtnl_addr *a, struct mpt_netmon_addr *ev)
{
	struct nl_addr *local = rtnl_addr_get_local(a);

	memset(ev, 0, sizeof(*ev));
	ev->ifindex = rtnl_addr_get_ifindex(a);
	ev->family = rtnl_addr_get_family(a);
	if (!local || (ev->family != AF_INET && ev->family != AF_INET6) ||
	    nl_addr_get_len(local) != (ev->family == AF_INET ? 4u : 16u))
		return false;
	memcpy(ev->addr.bytes, nl_addr_get_binary_addr(local), nl_addr_get_len(local));
	ev->plen = (uint8_t)rtnl_addr_get_prefixlen(a);
	return true;
}

static void parse_obj(struct nl_object *obj, void *arg)
{
	struct parse_ctx *ctx = arg;
	struct mpt_netmon *nm = ctx->nm;

	switch (ctx->type) {
	case RTM_NEWLINK:
	case RTM_DELLINK: {
		struct mpt_netmon_link ev;

		link_from_obj((struct rtnl_link *)obj, &ev);
		ev.deleted = ctx->type == RTM_DELLINK;
		if (ev.deleted)
			ev.up = false;
		nm->events++;
		if (nm->ops.link)
			nm->ops.link(nm->arg, &ev);
		break;
	}
	case RTM_NEWADDR:
	case RTM_DELADDR: {
		struct mpt_netmon_addr ev;

		if (!addr_from_obj((struct rtnl_addr *)obj, &ev))
			break;
		ev.added = ctx->type == RTM_NEWADDR;
		nm->events++;
		if (nm->ops.addr)
			nm->ops.addr(nm->arg, &ev);
		break;
	}
	}
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct parse_ctx ctx = { .nm = arg, .type = nlmsg_hdr(msg)->nlmsg_type };
	int err = nl_msg_parse(msg, parse_obj, &ctx);

	if (err < 0 && err != -NLE_MSGTYPE_NOSUPPORT)
		log_debug("netmon: unparsable rtnetlink message type %d: %s", ctx.type,
			  nl_geterror(err));
	return NL_OK;
}

static int sock_open(struct nl_sock **sk, const char *what)
{
	int err;

	*sk = nl_socket_alloc();
	if (!*sk)
		return -ENOMEM;
	err = nl_connect(*sk, NETLINK_ROUTE);
	if (err < 0) {
		err = -mpt_nlerr_to_errno(err);
		log_warnx("netmon: %s socket: %s", what, strerror(-err));
		nl_socket_free(*sk);
		*sk = NULL;
	}
	return err;
}

int mpt_netmon_open(struct mpt_netmon *nm, const struct mpt_netmon_ops *ops, void *arg)
{
	int err;

	memset(nm, 0, sizeof(*nm));
	nm->ops = *ops;
	nm->arg = arg;
	if ((err = sock_open(&nm->query, "query")) < 0)
		return err;
	if ((err = sock_open(&nm->mon, "monitor")) < 0)
		goto fail;
	nl_socket_disable_seq_check(nm->mon);
	nl_socket_modify_cb(nm->mon, NL_CB_VALID, NL_CB_CUSTOM, on_msg, nm);
	err = nl_socket_add_memberships(nm->mon, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR,
					RTNLGRP_IPV6_IFADDR, 0);
	if (err >= 0)
		err = nl_socket_set_nonblocking(nm->mon);
	if (err >= 0)
		err = nl_socket_set_buffer_size(nm->mon, NETMON_RCVBUF, 0);
	if (err < 0) {
		err = -mpt_nlerr_to_errno(err);
		log_warnx("netmon: subscribing to link and address events: %s",
			  strerror(-err));
		goto fail;
	}
	return 0;
fail:
	mpt_netmon_close(nm);
	return err;
}

void mpt_netmon_close(struct mpt_netmon *nm)
{
	if (nm->mon)
		nl_socket_free(nm->mon);
	if (nm->query)
		nl_socket_free(nm->query);
	nm->mon = nm->query = NULL;
}

int mpt_netmon_fd(const struct mpt_netmon *nm)
{
	return nl_socket_get_fd(nm->mon);
}

int mpt_netmon_process(struct mpt_netmon *nm)
{
	struct nl_cb *cb = nl_socket_get_cb(nm->mon);
	int n, ret = 0;

	/* nl_recvmsgs_report: number of messages, 0 when the socket is drained */
	while ((n = nl_recvmsgs_report(nm->mon, cb)) > 0)
		;
	if (n == -NLE_NOMEM) {		/* ENOBUFS from recvmsg: we missed events */
		nm->overruns++;
		log_warnx("netmon: kernel dropped link/address notifications");
		ret = -ENOBUFS;
	} else if (n < 0 && n != -NLE_AGAIN) {
		ret = -mpt_nlerr_to_errno(n);
		log_warnx("netmon: receive: %s", nl_geterror(n));
	}
	nl_cb_put(cb);
	return ret;
}

static int get_link(struct mpt_netmon *nm, const char *ifname, struct rtnl_link **l)
{
	int err = rtnl_link_get_kernel(nm->query, 0, ifname, l);

	if (err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV)
		return -ENODEV;
	return err < 0 ? -mpt_nlerr_to_errno(err) : 0;
}

int mpt_netmon_link_is_up(struct mpt_netmon *nm, const char *ifname)
{
	struct rtnl_link *l;
	struct mpt_netmon_link ev;
	int err = get_link(nm, ifname, &l);

	if (err == -ENODEV)
		return 0;
	if (err < 0) {
		log_warnx("netmon: link '%s': %s", ifname, strerror(-err));
		return err;
	}
	link_from_obj(l, &ev);
	rtnl_link_put(l);
	return ev.up;
}

static bool is_v6_linklocal(const struct mpt_netmon_addr *a)
{
	return a->family == AF_INET6 && a->addr.bytes[0] == 0xfe &&
	       (a->addr.bytes[1] & 0xc0) == 0x80;
}

int mpt_netmon_has_addr(struct mpt_netmon *nm, const char *ifname, int family)
{
	struct nl_cache *cache;
	struct nl_object *obj;
	struct rtnl_link *l;
	int ifindex, err, found = 0;

	err = get_link(nm, ifname, &l);
	if (err < 0)
		return err;
	ifindex = rtnl_link_get_ifindex(l);
	rtnl_link_put(l);
	err = rtnl_addr_alloc_cache(nm->query, &cache);
	if (err < 0) {
		err = -mpt_nlerr_to_errno(err);
		log_warnx("netmon: addresses of '%s': %s", ifname, strerror(-err));
		return err;
	}
	for (obj = nl_cache_get_first(cache); obj && !found; obj = nl_cache_get_next(obj)) {
		struct mpt_netmon_addr a;

		if (!addr_from_obj((struct rtnl_addr *)obj, &a) || a.ifindex != ifindex)
			continue;
		if (family == AF_UNSPEC ||
		    (a.family == family && !is_v6_linklocal(&a)))
			found = 1;
	}
	nl_cache_free(cache);
	return found;
}
