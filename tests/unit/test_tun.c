// SPDX-License-Identifier: MIT
/*
 * TUN device and netlink monitor against the real kernel, in a private network
 * namespace of this test process (skipped unless root with /dev/net/tun):
 *
 *   [ test process, fresh netns ]
 *        recovt0 (TUN, MTU 1400)
 *          10.77.0.1/24, fd00:77::1/64
 *          routes 10.78.0.0/16, fd00:78::/48 dev recovt0
 *        netmon socket <- RTNLGRP_LINK, RTNLGRP_IPV{4,6}_IFADDR
 *
 * Checks the configuration through /proc/net (per namespace) and the netmon
 * queries, the link and address events through up/down/close, and that closing
 * deletes the device.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "netmon.h"
#include "tun.h"

#define TUN_NAME	"recovt0"
#define WAIT_MS		3000	/* linkwatch may defer oper-state changes ~1 s */

struct events {
	int ifindex;			/* ours; 0 before the device exists */
	struct mpt_netmon_link last;
	unsigned nlink;
	unsigned added[2], removed[2];	/* [0] IPv4, [1] IPv6 */
};

static void on_link(void *arg, const struct mpt_netmon_link *ev)
{
	struct events *e = arg;

	if (strcmp(ev->name, TUN_NAME) != 0)
		return;
	e->last = *ev;
	e->nlink++;
}

static void on_addr(void *arg, const struct mpt_netmon_addr *ev)
{
	struct events *e = arg;

	if (!e->ifindex || ev->ifindex != e->ifindex)
		return;
	if (ev->added)
		e->added[ev->family == AF_INET6]++;
	else
		e->removed[ev->family == AF_INET6]++;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

typedef bool (*pred_fn)(const struct events *e);

/* Run the monitor until pred holds or WAIT_MS pass. */
static bool wait_for(struct mpt_netmon *nm, struct events *e, pred_fn pred)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct pollfd pfd = { .fd = mpt_netmon_fd(nm), .events = POLLIN };

	for (;;) {
		assert_int_equal(mpt_netmon_process(nm), 0);
		if (pred(e))
			return true;
		if (now_ms() >= end)
			return false;
		poll(&pfd, 1, 100);
	}
}

static bool is_up(const struct events *e) { return e->nlink && e->last.up; }
static bool is_down(const struct events *e) { return e->nlink && !e->last.up; }
static bool is_deleted(const struct events *e) { return e->nlink && e->last.deleted; }
static bool both_added(const struct events *e) { return e->added[0] && e->added[1]; }

static bool file_has(const char *path, const char *a, const char *b)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, a) && (!b || strstr(line, b));
	fclose(f);
	return found;
}

static int if_mtu(const char *name)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(s, SIOCGIFMTU, &ifr), 0);
	close(s);
	return ifr.ifr_mtu;
}

static struct mpt_prefix pfx(int family, const char *text, uint8_t plen)
{
	struct mpt_prefix p = { .family = family, .plen = plen };

	assert_int_equal(inet_pton(family, text, p.addr.bytes), 1);
	return p;
}

static void test_tun_netmon(void **state)
{
	const struct mpt_netmon_ops ops = { .link = on_link, .addr = on_addr };
	struct mpt_prefix a4 = pfx(AF_INET, "10.77.0.1", 24);
	struct mpt_prefix a6 = pfx(AF_INET6, "fd00:77::1", 64);
	struct mpt_prefix r4 = pfx(AF_INET, "10.78.0.0", 16);
	struct mpt_prefix r6 = pfx(AF_INET6, "fd00:78::", 48);
	struct mpt_prefix bad = pfx(AF_INET, "10.0.0.0", 33);
	struct events ev = { 0 };
	struct mpt_netmon nm;
	struct mpt_tun t;

	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0)
		skip();
	if (unshare(CLONE_NEWNET) != 0)
		skip();

	assert_int_equal(mpt_netmon_open(&nm, &ops, &ev), 0);
	assert_int_equal(mpt_tun_open(&t, "a-name-far-too-long", 1400, false), -EINVAL);
	assert_int_equal(mpt_tun_open(&t, TUN_NAME, 1400, false), 0);
	ev.ifindex = t.ifindex;
	assert_string_equal(t.name, TUN_NAME);
	assert_true(t.fd >= 0);
	assert_true(fcntl(t.fd, F_GETFL) & O_NONBLOCK);
	assert_int_equal(if_mtu(TUN_NAME), 1400);
	assert_int_equal(mpt_netmon_link_is_up(&nm, TUN_NAME), 0);
	assert_int_equal(mpt_netmon_has_addr(&nm, TUN_NAME, AF_INET), 0);
	assert_int_equal(mpt_netmon_has_addr(&nm, "nosuchlink0", AF_INET), -ENODEV);
	assert_int_equal(mpt_netmon_link_is_up(&nm, "nosuchlink0"), 0);

	/* up: a link event saying so */
	assert_int_equal(mpt_tun_up(&t), 0);
	assert_true(wait_for(&nm, &ev, is_up));
	assert_int_equal(ev.last.ifindex, t.ifindex);
	assert_true(ev.last.admin_up && ev.last.carrier);
	assert_int_equal(mpt_netmon_link_is_up(&nm, TUN_NAME), 1);

	/* addresses and routes */
	assert_int_equal(mpt_tun_add_addr(&t, &a4), 0);
	assert_int_equal(mpt_tun_add_addr(&t, &a6), 0);
	assert_int_equal(mpt_tun_add_addr(&t, &bad), -EINVAL);
	assert_int_equal(mpt_tun_add_route(&t, &r4), 0);
	assert_int_equal(mpt_tun_add_route(&t, &r6), 0);
	assert_int_equal(mpt_tun_add_route(&t, &r6), 0);	/* idempotent */
	assert_int_equal(t.nroutes, 2);
	assert_true(wait_for(&nm, &ev, both_added));
	assert_int_equal(mpt_netmon_has_addr(&nm, TUN_NAME, AF_INET), 1);
	assert_int_equal(mpt_netmon_has_addr(&nm, TUN_NAME, AF_INET6), 1);
	/* /proc/net is this namespace's: 10.78.0.0 is 00004E0A in host order here */
	assert_true(file_has("/proc/net/route", TUN_NAME "\t00004E0A", NULL));
	assert_true(file_has("/proc/net/ipv6_route", "fd000078000000000000000000000000 30",
			     TUN_NAME));
	assert_true(file_has("/proc/net/if_inet6", "fd000077000000000000000000000001",
			     TUN_NAME));

	/* down and up again */
	assert_int_equal(mpt_tun_down(&t), 0);
	assert_true(wait_for(&nm, &ev, is_down));
	assert_false(ev.last.admin_up);
	assert_int_equal(mpt_netmon_link_is_up(&nm, TUN_NAME), 0);
	assert_int_equal(mpt_tun_up(&t), 0);
	assert_true(wait_for(&nm, &ev, is_up));

	/* close: addresses go, the device is deleted */
	mpt_tun_close(&t);
	assert_int_equal(t.fd, -1);
	assert_true(wait_for(&nm, &ev, is_deleted));
	assert_int_equal(if_nametoindex(TUN_NAME), 0);
	assert_true(ev.removed[0] >= 1);
	assert_false(file_has("/proc/net/route", TUN_NAME, NULL));
	assert_int_equal(mpt_netmon_has_addr(&nm, TUN_NAME, AF_INET), -ENODEV);
	mpt_netmon_close(&nm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tun_netmon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
