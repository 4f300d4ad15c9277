// SPDX-License-Identifier: MIT
/* Source address pinning helpers (io/udp_local.c): the local address read from a
 * received message's IP_PKTINFO / IPV6_PKTINFO, and the control message that sends
 * from it (IPv4: ipi_spec_dst, no interface; IPv6: the address, the interface only
 * for a link-local one); unknown means no control message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "udp_local.h"

/* A received message whose control data holds one cmsg (level, type, data). */
static void rx_msg(struct msghdr *mh, void *ctl, size_t cap, int level, int type,
		   const void *data, size_t len)
{
	struct cmsghdr *cm;

	memset(ctl, 0, cap);
	memset(mh, 0, sizeof(*mh));
	mh->msg_control = ctl;
	mh->msg_controllen = CMSG_SPACE(len);
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
}

static void test_ipv4(void **state)
{
	union { char b[128]; struct cmsghdr a; } ctl, out;
	struct in_pktinfo pi = { .ipi_ifindex = 3 }, sent;
	struct msghdr mh;
	struct mpt_local l;
	struct cmsghdr *cm;
	char text[64];
	size_t n;

	(void)state;
	inet_pton(AF_INET, "10.1.1.5", &pi.ipi_addr);
	inet_pton(AF_INET, "10.1.1.1", &pi.ipi_spec_dst);	/* routing's choice */
	rx_msg(&mh, ctl.b, sizeof(ctl.b), IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	mpt_local_from_msg(&mh, &l);
	assert_int_equal(l.family, AF_INET);	/* IPPROTO_IP is 0: not "unknown" */
	assert_int_equal(l.ifindex, 3);
	mpt_local_format(&l, text, sizeof(text));
	assert_string_equal(text, "10.1.1.5%3");	/* the datagram's destination */

	memset(&out, 0, sizeof(out));
	n = mpt_local_cmsg(&l, out.b, sizeof(out.b));
	assert_int_equal(n, CMSG_SPACE(sizeof(struct in_pktinfo)));
	cm = (struct cmsghdr *)out.b;
	assert_int_equal(cm->cmsg_level, IPPROTO_IP);
	assert_int_equal(cm->cmsg_type, IP_PKTINFO);
	memcpy(&sent, CMSG_DATA(cm), sizeof(sent));
	assert_memory_equal(&sent.ipi_spec_dst, &pi.ipi_addr, 4);
	assert_int_equal(sent.ipi_ifindex, 0);	/* routing picks the interface */
}

static void test_ipv6_and_mapped(void **state)
{
	union { char b[128]; struct cmsghdr a; } ctl, out;
	struct in6_pktinfo pi = { .ipi6_ifindex = 4 }, sent;
	struct mpt_local l, l2;
	struct msghdr mh;
	char text[64];

	(void)state;
	inet_pton(AF_INET6, "::ffff:10.1.1.5", &pi.ipi6_addr);	/* v4 on a v6 socket */
	rx_msg(&mh, ctl.b, sizeof(ctl.b), IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	mpt_local_from_msg(&mh, &l);
	assert_int_equal(l.family, AF_INET6);
	mpt_local_format(&l, text, sizeof(text));
	assert_string_equal(text, "::ffff:10.1.1.5%4");
	assert_int_equal(mpt_local_cmsg(&l, out.b, sizeof(out.b)),
			 CMSG_SPACE(sizeof(struct in6_pktinfo)));
	memcpy(&sent, CMSG_DATA((struct cmsghdr *)out.b), sizeof(sent));
	assert_memory_equal(&sent.ipi6_addr, &pi.ipi6_addr, 16);
	assert_int_equal(sent.ipi6_ifindex, 0);

	inet_pton(AF_INET6, "fe80::5", &pi.ipi6_addr);		/* link-local: needs it */
	rx_msg(&mh, ctl.b, sizeof(ctl.b), IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	mpt_local_from_msg(&mh, &l2);
	assert_false(mpt_local_equal(&l, &l2));
	memset(&out, 0, sizeof(out));
	mpt_local_cmsg(&l2, out.b, sizeof(out.b));
	memcpy(&sent, CMSG_DATA((struct cmsghdr *)out.b), sizeof(sent));
	assert_int_equal(sent.ipi6_ifindex, 4);
}

static void test_unknown(void **state)
{
	union { char b[128]; struct cmsghdr a; } ctl, out;
	int gro = 1400;
	struct msghdr mh;
	struct mpt_local l;
	char text[8];

	(void)state;
	/* another cmsg only (UDP_GRO, level SOL_UDP 17, type 104): nothing known */
	rx_msg(&mh, ctl.b, sizeof(ctl.b), 17, 104, &gro, sizeof(gro));
	mpt_local_from_msg(&mh, &l);
	assert_int_equal(l.family, 0);
	assert_int_equal(mpt_local_cmsg(&l, out.b, sizeof(out.b)), 0);
	assert_int_equal(mpt_local_cmsg(NULL, out.b, sizeof(out.b)), 0);
	mpt_local_format(&l, text, sizeof(text));
	assert_string_equal(text, "-");
	l.family = AF_INET;
	assert_int_equal(mpt_local_cmsg(&l, out.b, 8), 0);	/* no room */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv6_and_mapped),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
