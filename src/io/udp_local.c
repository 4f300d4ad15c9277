// SPDX-License-Identifier: MIT
/*
 * Source address pinning (udp_local.h). Only the address is pinned: the interface
 * is left to routing (ifindex 0), except for an IPv6 link-local address, which means
 * nothing without it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "udp.h"
#include "udp_local.h"

int mpt_local_enable(int fd, int family)
{
	int one = 1;

	/* an IPv6 socket reports IPv4 datagrams through IPV6_PKTINFO (v4-mapped) */
	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0
			       ? -errno : 0;
	return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0 ? -errno : 0;
}

void mpt_local_from_msg(struct msghdr *mh, struct mpt_local *l)
{
	memset(l, 0, sizeof(*l));
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			l->family = AF_INET;
			l->ifindex = pi.ipi_ifindex;
			memcpy(l->addr.s6_addr, &pi.ipi_addr, sizeof(pi.ipi_addr));
			return;
		}
		if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			l->family = AF_INET6;
			l->ifindex = (int)pi.ipi6_ifindex;
			l->addr = pi.ipi6_addr;
			return;
		}
	}
}

bool mpt_local_equal(const struct mpt_local *a, const struct mpt_local *b)
{
	return a->family == b->family && a->ifindex == b->ifindex &&
	       memcmp(&a->addr, &b->addr, sizeof(a->addr)) == 0;
}

size_t mpt_local_cmsg(const struct mpt_local *l, void *buf, size_t cap)
{
	struct msghdr mh = { .msg_control = buf, .msg_controllen = cap };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	if (!l || !l->family || !cm || cap < MPT_LOCAL_CMSG_SPACE)
		return 0;
	if (l->family == AF_INET) {
		struct in_pktinfo pi = { 0 };

		memcpy(&pi.ipi_spec_dst, l->addr.s6_addr, sizeof(pi.ipi_spec_dst));
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_addr = l->addr };

		if (IN6_IS_ADDR_LINKLOCAL(&l->addr))
			pi.ipi6_ifindex = (unsigned)l->ifindex;
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	}
}

int mpt_local_sendto(int fd, const void *buf, size_t len, const struct sockaddr *to,
		     socklen_t tolen, const struct mpt_local *l)
{
	union {
		char buf[MPT_LOCAL_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	ssize_t n;
	struct msghdr mh = {
		.msg_name = (void *)to,
		.msg_namelen = tolen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};

	memset(&ctl, 0, sizeof(ctl));
	mh.msg_controllen = mpt_local_cmsg(l, ctl.buf, sizeof(ctl.buf));
	if (mh.msg_controllen)
		mh.msg_control = ctl.buf;
	n = mpt_udp_sendmsg(fd, &mh);	/* past a pending ICMP error (udp.h) */
	if (n < 0 && mh.msg_controllen && mpt_local_refused(l, (int)n)) {
		mh.msg_control = NULL;	/* the kernel's choice of source */
		mh.msg_controllen = 0;
		n = mpt_udp_sendmsg(fd, &mh);
		if (n >= 0)
			return MPT_LOCAL_UNPINNED;
	}
	return n < 0 ? (int)n : 0;
}

bool mpt_local_refused(const struct mpt_local *l, int err)
{
	return l && l->family &&
	       (err == -EINVAL || err == -ENETUNREACH || err == -EADDRNOTAVAIL);
}

void mpt_local_format(const struct mpt_local *l, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!l->family) {
		snprintf(buf, len, "-");
		return;
	}
	if (l->family == AF_INET)
		inet_ntop(AF_INET, l->addr.s6_addr, a, sizeof(a));
	else
		inet_ntop(AF_INET6, &l->addr, a, sizeof(a));
	snprintf(buf, len, "%s%%%d", a, l->ifindex);
}
