// SPDX-License-Identifier: MIT
/* UDP sends past a pending ICMP error of an earlier datagram: see udp.h. */
#include <errno.h>

#include "udp.h"

/* Worth a second try: not a full socket buffer (EAGAIN, ENOBUFS) or an interrupted
 * call, which the caller handles as congestion. */
static int retry(void)
{
	return errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS;
}

ssize_t mpt_udp_sendto(int fd, const void *buf, size_t len, const struct sockaddr *to,
		       socklen_t tolen)
{
	ssize_t n = sendto(fd, buf, len, MSG_DONTWAIT, to, tolen);

	if (n < 0 && retry())
		n = sendto(fd, buf, len, MSG_DONTWAIT, to, tolen);
	return n < 0 ? -errno : n;
}

ssize_t mpt_udp_sendmsg(int fd, const struct msghdr *mh)
{
	ssize_t n = sendmsg(fd, mh, MSG_DONTWAIT);

	if (n < 0 && retry())
		n = sendmsg(fd, mh, MSG_DONTWAIT);
	return n < 0 ? -errno : n;
}

int mpt_udp_sendmmsg(int fd, struct mmsghdr *v, unsigned n)
{
	int k = sendmmsg(fd, v, n, MSG_DONTWAIT);

	if (k < 0 && retry())
		k = sendmmsg(fd, v, n, MSG_DONTWAIT);
	return k < 0 ? -errno : k;
}
