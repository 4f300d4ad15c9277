// SPDX-License-Identifier: MIT
/*
 * UDP sends past a pending ICMP error (udp.h), on loopback sockets: with IP_RECVERR, a
 * port unreachable for an earlier datagram makes the kernel fail the next sendto(2) on
 * the socket with ECONNREFUSED, whatever its destination (checked here, as the reason
 * for the wrapper); mpt_udp_sendto delivers that datagram, and the error is still in
 * the error queue for the receive side. The same for sendmmsg.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "udp.h"

static int udp_bound(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)a, sizeof(*a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)a, &len), 0);
	return fd;
}

/* Send to a port nobody listens on and wait for the ICMP error to be pending. */
static void provoke(int fd, const struct sockaddr_in *closed)
{
	struct pollfd p = { .fd = fd, .events = 0 };

	assert_int_equal(sendto(fd, "x", 1, 0, (const struct sockaddr *)closed,
				sizeof(*closed)), 1);
	assert_int_equal(poll(&p, 1, 2000), 1);
	assert_true(p.revents & POLLERR);
}

static void test_pending_error(void **state)
{
	struct sockaddr_in a, b, closed;
	int one = 1, fa = udp_bound(&a), fb = udp_bound(&b), fc = udp_bound(&closed);
	char buf[16], cbuf[256];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct iovec siov = { .iov_base = "mm", .iov_len = 2 };
	struct mmsghdr mm = { .msg_hdr = { .msg_name = &b, .msg_namelen = sizeof(b),
					   .msg_iov = &siov, .msg_iovlen = 1 } };

	(void)state;
	close(fc);
	assert_int_equal(setsockopt(fa, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)), 0);

	provoke(fa, &closed);		/* the kernel's behaviour the wrapper is for */
	assert_int_equal(sendto(fa, "a", 1, 0, (struct sockaddr *)&b, sizeof(b)), -1);
	assert_int_equal(errno, ECONNREFUSED);

	provoke(fa, &closed);
	assert_int_equal(mpt_udp_sendto(fa, "ok", 2, (struct sockaddr *)&b, sizeof(b)), 2);
	assert_int_equal(recv(fb, buf, sizeof(buf), MSG_DONTWAIT), 2);
	assert_memory_equal(buf, "ok", 2);

	provoke(fa, &closed);
	assert_int_equal(mpt_udp_sendmmsg(fa, &mm, 1), 1);
	assert_int_equal(recv(fb, buf, sizeof(buf), MSG_DONTWAIT), 2);
	assert_memory_equal(buf, "mm", 2);

	/* the errors wait in the error queue for the receive side */
	assert_true(recvmsg(fa, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0);
	close(fa);
	close(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pending_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
