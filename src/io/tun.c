// SPDX-License-Identifier: MIT
/* The TUN device and its configuration through libnl-route-3; see tun.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <netlink/addr.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/inet6.h>
#include <netlink/route/route.h>
#include <netlink/socket.h>

#include "gso.h"
#include "log.h"
#include "nlerr.h"
#include "tun.h"

static const char *prefix_str(const struct mpt_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family, p->addr.bytes, a, sizeof(a)))
		snprintf(a, sizeof(a), "family %d", p->family);
	snprintf(buf, len, "%s/%u", a, p->plen);
	return buf;
}

static int check_prefix(const struct mpt_tun *t, const struct mpt_prefix *p,
			const char *what)
{
	char buf[64];

	if ((p->family == AF_INET && p->plen <= 32) ||
	    (p->family == AF_INET6 && p->plen <= 128))
		return 0;
	log_warnx("tun %s: %s '%s' is not a valid IPv4/IPv6 prefix", t->name, what,
		  prefix_str(p, buf, sizeof(buf)));
	return -EINVAL;
}

static struct nl_addr *nladdr(const struct mpt_prefix *p)
{
	struct nl_addr *a = nl_addr_build(p->family, p->addr.bytes,
					  p->family == AF_INET ? 4 : 16);

	if (a)
		nl_addr_set_prefixlen(a, p->plen);
	return a;
}

/* Apply link changes (MTU, flags) to our device. */
static int link_change(struct mpt_tun *t, uint32_t mtu, int up, const char *what)
{
	struct rtnl_link *orig = NULL, *chg = NULL;
	int err;

	err = rtnl_link_get_kernel(t->nl, t->ifindex, NULL, &orig);
	if (err < 0)
		goto out;
	chg = rtnl_link_alloc();
	if (!chg) {
		err = -NLE_NOMEM;
		goto out;
	}
	if (mtu)
		rtnl_link_set_mtu(chg, mtu);
	if (up > 0)
		rtnl_link_set_flags(chg, IFF_UP);
	else if (up == 0)
		rtnl_link_unset_flags(chg, IFF_UP);
	err = rtnl_link_change(t->nl, orig, chg, 0);
out:
	if (chg)
		rtnl_link_put(chg);
	if (orig)
		rtnl_link_put(orig);
	if (err < 0) {
		err = -mpt_nlerr_to_errno(err);
		log_warnx("tun %s: %s: %s", t->name, what, strerror(-err));
	}
	return err;
}

#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20	/* Linux 6.2: UDP segmentation offload */
#define TUN_F_USO6	0x40
#endif

/* Create (attach to) the device, with a virtio-net header on every packet when vnet. */
static int attach(struct mpt_tun *t, const char *name, bool vnet)
{
	struct ifreq ifr;
	int err;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		err = -errno;
		log_warn("tun %s: open /dev/net/tun", name);
		return err;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (vnet ? IFF_VNET_HDR : 0);
	memcpy(ifr.ifr_name, t->name, sizeof(t->name));
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		err = -errno;
		log_warn("tun '%s': TUNSETIFF", name);
		return err;
	}
	memcpy(t->name, ifr.ifr_name, IFNAMSIZ);
	t->name[IFNAMSIZ - 1] = '\0';
	t->vnet = vnet;
	return 0;
}

/*
 * TSO/USO super-packets and unfinished checksums from the kernel (proto/gso.h). The
 * kernel may refuse USO (before 6.2) or every offload: then the device is created
 * again without the virtio-net header, which would only cost bytes per packet.
 */
static int attach_offload(struct mpt_tun *t, const char *name)
{
	static const unsigned sets[] = {
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
	};
	unsigned features = 0;
	int vlen = MPT_VNET_HDR_LEN;
	int err;

	t->fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (t->fd >= 0 && ioctl(t->fd, TUNGETFEATURES, &features) < 0)
		features = 0;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (!(features & IFF_VNET_HDR)) {
		log_info("tun %s: no TUN offloads (no IFF_VNET_HDR)", name);
		return attach(t, name, false);
	}
	err = attach(t, name, true);
	if (err < 0)
		return err;
	if (ioctl(t->fd, TUNSETVNETHDRSZ, &vlen) == 0)
		for (unsigned i = 0; i < MPT_ARRAY_SIZE(sets); i++)
			if (ioctl(t->fd, TUNSETOFFLOAD, (unsigned long)sets[i]) == 0) {
				t->offload = sets[i];
				return 0;
			}
	log_info("tun %s: the kernel refuses TUN offloads (%s): one read per packet",
		 t->name, strerror(errno));
	close(t->fd);
	t->fd = -1;
	t->vnet = false;
	snprintf(t->name, sizeof(t->name), "%s", name);
	return attach(t, name, false);
}

/*
 * No IPv6 link-local address on the device (address generation mode "none", before it
 * goes up), so that the kernel sends no link-scoped chatter into the tunnel: router
 * solicitations from fe80::/10 to ff02::2, repeated with a backoff for as long as
 * the device is up. Link-local packets go no further than the link (RFC 4291 section
 * 2.5.6) and the peer has no use for them: the anchor counted the UE's as spoofed
 * (a source outside AllowedIPs), its own as packets for no session. Best effort:
 * IPv6 may be off.
 */
static void no_link_local(struct mpt_tun *t)
{
	struct rtnl_link *orig = NULL, *chg = NULL;
	int err;

	err = rtnl_link_get_kernel(t->nl, t->ifindex, NULL, &orig);
	if (err >= 0 && !(chg = rtnl_link_alloc()))
		err = -NLE_NOMEM;
	if (err >= 0)
		err = rtnl_link_inet6_set_addr_gen_mode(chg, IN6_ADDR_GEN_MODE_NONE);
	if (err >= 0)
		err = rtnl_link_change(t->nl, orig, chg, 0);
	if (err < 0)
		log_debug("tun %s: IPv6 address generation off: %s", t->name,
			  strerror(mpt_nlerr_to_errno(err)));
	if (chg)
		rtnl_link_put(chg);
	if (orig)
		rtnl_link_put(orig);
}

int mpt_tun_open(struct mpt_tun *t, const char *name, uint32_t mtu, bool offload)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (strlen(name) >= IFNAMSIZ) {
		log_warnx("tun: name '%s' is longer than %d characters", name, IFNAMSIZ - 1);
		return -EINVAL;
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	err = offload ? attach_offload(t, name) : attach(t, name, false);
	if (err < 0)
		goto fail;
	/* a device left persistent by someone else would outlive us */
	if (ioctl(t->fd, TUNSETPERSIST, 0) < 0) {
		err = -errno;
		log_warn("tun %s: TUNSETPERSIST off", t->name);
		goto fail;
	}
	t->ifindex = (int)if_nametoindex(t->name);
	if (!t->ifindex) {
		err = -errno;
		log_warn("tun %s: if_nametoindex", t->name);
		goto fail;
	}
	t->nl = nl_socket_alloc();
	if (!t->nl) {
		err = -ENOMEM;
		goto fail;
	}
	err = nl_connect(t->nl, NETLINK_ROUTE);
	if (err < 0) {
		err = -mpt_nlerr_to_errno(err);
		log_warnx("tun %s: netlink route socket: %s", t->name, strerror(-err));
		goto fail;
	}
	no_link_local(t);
	if (mtu && (err = mpt_tun_set_mtu(t, mtu)) < 0)
		goto fail;
	return 0;
fail:
	mpt_tun_close(t);
	return err;
}

int mpt_tun_set_mtu(struct mpt_tun *t, uint32_t mtu)
{
	char what[48];
	int err;

	snprintf(what, sizeof(what), "set MTU '%u'", mtu);
	err = link_change(t, mtu, -1, what);
	if (!err)
		t->mtu = mtu;
	return err;
}

int mpt_tun_up(struct mpt_tun *t)
{
	return link_change(t, 0, 1, "set link up");
}

int mpt_tun_down(struct mpt_tun *t)
{
	return link_change(t, 0, 0, "set link down");
}

static int addr_op(struct mpt_tun *t, const struct mpt_prefix *p, bool add)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *local = nladdr(p);
	int err = -NLE_NOMEM;

	if (!a || !local)
		goto out;
	rtnl_addr_set_ifindex(a, t->ifindex);
	rtnl_addr_set_family(a, p->family);
	err = rtnl_addr_set_local(a, local);
	if (err < 0)
		goto out;
	rtnl_addr_set_prefixlen(a, p->plen);
	/* a point-to-point tunnel has no neighbours to detect duplicates with */
	if (p->family == AF_INET6)
		rtnl_addr_set_flags(a, IFA_F_NODAD);
	err = add ? rtnl_addr_add(t->nl, a, 0) : rtnl_addr_delete(t->nl, a, 0);
out:
	if (local)
		nl_addr_put(local);
	if (a)
		rtnl_addr_put(a);
	return err < 0 ? -mpt_nlerr_to_errno(err) : 0;
}

int mpt_tun_add_addr(struct mpt_tun *t, const struct mpt_prefix *addr)
{
	char buf[64];
	int err = check_prefix(t, addr, "address");

	if (err)
		return err;
	if (t->naddrs == MPT_ARRAY_SIZE(t->addrs)) {
		log_warnx("tun %s: address '%s': more than %zu addresses", t->name,
			  prefix_str(addr, buf, sizeof(buf)), MPT_ARRAY_SIZE(t->addrs));
		return -ENOSPC;
	}
	err = addr_op(t, addr, true);
	if (err) {
		log_warnx("tun %s: add address '%s': %s", t->name,
			  prefix_str(addr, buf, sizeof(buf)), strerror(-err));
		return err;
	}
	t->addrs[t->naddrs++] = *addr;
	return 0;
}

static int route_op(struct mpt_tun *t, const struct mpt_prefix *p, bool add)
{
	struct rtnl_route *r = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = nladdr(p);
	int err = -NLE_NOMEM;

	if (!r || !nh || !dst)
		goto out;
	rtnl_route_set_family(r, (uint8_t)p->family);
	rtnl_route_set_table(r, RT_TABLE_MAIN);
	rtnl_route_set_scope(r, RT_SCOPE_LINK);
	rtnl_route_set_protocol(r, RTPROT_STATIC);
	err = rtnl_route_set_dst(r, dst);
	if (err < 0)
		goto out;
	rtnl_route_nh_set_ifindex(nh, t->ifindex);
	rtnl_route_add_nexthop(r, nh);
	nh = NULL;			/* owned by the route now */
	/* REPLACE: idempotent across a daemon restart */
	err = add ? rtnl_route_add(t->nl, r, NLM_F_CREATE | NLM_F_REPLACE)
		  : rtnl_route_delete(t->nl, r, 0);
out:
	if (nh)
		rtnl_route_nh_free(nh);
	if (dst)
		nl_addr_put(dst);
	if (r)
		rtnl_route_put(r);
	return err < 0 ? -mpt_nlerr_to_errno(err) : 0;
}

int mpt_tun_add_route(struct mpt_tun *t, const struct mpt_prefix *dst)
{
	char buf[64];
	int err = check_prefix(t, dst, "route");

	if (err)
		return err;
	if (t->nroutes == MPT_ARRAY_SIZE(t->routes)) {
		log_warnx("tun %s: route '%s': more than %zu routes", t->name,
			  prefix_str(dst, buf, sizeof(buf)), MPT_ARRAY_SIZE(t->routes));
		return -ENOSPC;
	}
	err = route_op(t, dst, true);
	for (unsigned i = 0; !err && i < t->nroutes; i++)
		if (t->routes[i].family == dst->family && t->routes[i].plen == dst->plen &&
		    !memcmp(&t->routes[i].addr, &dst->addr, sizeof(dst->addr)))
			return 0;	/* replaced, already ours */
	if (err) {
		log_warnx("tun %s: add route '%s': %s", t->name,
			  prefix_str(dst, buf, sizeof(buf)), strerror(-err));
		return err;
	}
	t->routes[t->nroutes++] = *dst;
	return 0;
}

void mpt_tun_close(struct mpt_tun *t)
{
	char buf[64];
	int err;

	if (t->nl) {
		while (t->nroutes) {
			const struct mpt_prefix *p = &t->routes[--t->nroutes];

			if ((err = route_op(t, p, false)) < 0)
				log_debug("tun %s: remove route '%s': %s", t->name,
					  prefix_str(p, buf, sizeof(buf)), strerror(-err));
		}
		while (t->naddrs) {
			const struct mpt_prefix *p = &t->addrs[--t->naddrs];

			if ((err = addr_op(t, p, false)) < 0)
				log_debug("tun %s: remove address '%s': %s", t->name,
					  prefix_str(p, buf, sizeof(buf)), strerror(-err));
		}
		nl_socket_free(t->nl);
		t->nl = NULL;
	}
	if (t->fd >= 0)
		close(t->fd);		/* not persistent: the device goes with it */
	t->fd = -1;
}

ssize_t mpt_tun_read(struct mpt_tun *t, struct mpt_vnet_hdr *vh, void *buf, size_t len)
{
	uint8_t h[MPT_VNET_HDR_LEN];
	struct iovec iov[2] = { { h, sizeof(h) }, { buf, len } };
	ssize_t n;

	if (!t->vnet) {
		memset(vh, 0, sizeof(*vh));
		n = read(t->fd, buf, len);
		return n < 0 ? -errno : n;
	}
	n = readv(t->fd, iov, 2);
	if (n < 0)
		return -errno;
	if (n < (ssize_t)sizeof(h))
		return -EINVAL;
	/* struct virtio_net_hdr: u8 flags, u8 gso_type, then four u16 in host order */
	vh->flags = h[0];
	vh->gso_type = h[1];
	memcpy(&vh->hdr_len, h + 2, 2);
	memcpy(&vh->gso_size, h + 4, 2);
	memcpy(&vh->csum_start, h + 6, 2);
	memcpy(&vh->csum_offset, h + 8, 2);
	return n - (ssize_t)sizeof(h);
}

ssize_t mpt_tun_write_vnet(struct mpt_tun *t, const struct mpt_vnet_hdr *vh, const void *pkt,
			   size_t len)
{
	uint8_t h[MPT_VNET_HDR_LEN];
	struct iovec iov[2] = { { h, sizeof(h) }, { (void *)pkt, len } };
	ssize_t n;

	if (!t->vnet)
		return -EINVAL;
	h[0] = vh->flags;
	h[1] = vh->gso_type;
	memcpy(h + 2, &vh->hdr_len, 2);
	memcpy(h + 4, &vh->gso_size, 2);
	memcpy(h + 6, &vh->csum_start, 2);
	memcpy(h + 8, &vh->csum_offset, 2);
	n = writev(t->fd, iov, 2);
	return n < 0 ? -errno : n - (ssize_t)sizeof(h);
}

ssize_t mpt_tun_write(struct mpt_tun *t, const void *pkt, size_t len)
{
	static const uint8_t zero[MPT_VNET_HDR_LEN];	/* no GSO, checksums complete */
	struct iovec iov[2] = { { (void *)zero, sizeof(zero) }, { (void *)pkt, len } };
	ssize_t n = t->vnet ? writev(t->fd, iov, 2) : write(t->fd, pkt, len);

	if (n < 0)
		return -errno;
	return t->vnet ? n - (ssize_t)sizeof(zero) : n;
}
