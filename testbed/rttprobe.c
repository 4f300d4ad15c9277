/* SPDX-License-Identifier: MIT */
/*
 * rttprobe: ICMP echo RTT measurement for the testbed (the hosts have no ping).
 * Raw ICMP socket (root); the peer's kernel answers, so the figure contains no
 * userspace turnaround on the far side. Receive times come from SO_TIMESTAMPNS (the
 * kernel's arrival stamp), send times are taken right before sendto().
 *
 *   rttprobe [-c COUNT] [-i SECONDS] [-s PAYLOAD] [-W TIMEOUT_S] [-B SRC] [-j] ADDRESS
 *
 * Requests leave every -i seconds whatever the replies do (like ping -i); a reply
 * later than -W seconds after its request counts as lost.
 * Prints one line per reply ("seq N rtt_ms X") unless -j, then a JSON summary:
 * {"sent":..,"received":..,"min_ms":..,"avg_ms":..,"max_ms":..,"mdev_ms":..,
 *  "p50_ms":..,"p90_ms":..,"p99_ms":..}
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RP_MAX_COUNT 100000

static double ts_ms(const struct timespec *t)
{
	return (double)t->tv_sec * 1e3 + (double)t->tv_nsec / 1e6;
}

static uint16_t csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(const double *v, int n, double q)
{
	int i = (int)ceil(q * n) - 1;

	return v[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

/* Read one datagram if it is an echo reply of ours: its sequence number and the
 * kernel's receive stamp. 1 = got one, 0 = something else. */
static int read_reply(int fd, uint16_t id, uint16_t *seq, double *rx_ms)
{
	uint8_t buf[2048], cbuf[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct timespec now;
	struct cmsghdr *c;
	struct icmphdr *ic;
	struct iphdr *ip;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	if (n < (ssize_t)(sizeof(*ip) + sizeof(*ic)))
		return 0;
	ip = (struct iphdr *)buf;
	if (n < ip->ihl * 4 + (ssize_t)sizeof(*ic))
		return 0;
	ic = (struct icmphdr *)(buf + ip->ihl * 4);
	if (ic->type != ICMP_ECHOREPLY || ic->un.echo.id != id)
		return 0;
	*seq = ntohs(ic->un.echo.sequence);
	clock_gettime(CLOCK_REALTIME, &now);
	*rx_ms = ts_ms(&now);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS)
			*rx_ms = ts_ms((struct timespec *)CMSG_DATA(c));
	return 1;
}

/* One echo request; its send time in *sent_ms. */
static void send_echo(int fd, const struct sockaddr_in *dst, uint16_t id, int seq, int size,
		      double *sent_ms)
{
	uint8_t pkt[1500] = { 0 };
	struct icmphdr *ic = (struct icmphdr *)pkt;
	struct timespec sent;

	ic->type = ICMP_ECHO;
	ic->un.echo.id = id;
	ic->un.echo.sequence = htons((uint16_t)seq);
	ic->checksum = csum(pkt, sizeof(*ic) + (size_t)size);
	clock_gettime(CLOCK_REALTIME, &sent);
	*sent_ms = ts_ms(&sent);
	if (sendto(fd, pkt, sizeof(*ic) + (size_t)size, 0, (const struct sockaddr *)dst,
		   sizeof(*dst)) < 0)
		perror("rttprobe: sendto");
}

int main(int argc, char **argv)
{
	int count = 10, size = 56, c, fd, one = 1, got = 0;
	double interval = 0.2, timeout = 1.0, sum = 0, sum2 = 0, *rtts, *sent_ms;
	bool *seen;
	bool json = false;
	struct sockaddr_in dst = { .sin_family = AF_INET }, src = { .sin_family = AF_INET };
	const char *bind_to = NULL;
	uint16_t id = (uint16_t)getpid();

	while ((c = getopt(argc, argv, "c:i:s:W:B:j")) != -1) {
		switch (c) {
		case 'c': count = atoi(optarg); break;
		case 'i': interval = atof(optarg); break;
		case 's': size = atoi(optarg); break;
		case 'W': timeout = atof(optarg); break;
		case 'j': json = true; break;
		case 'B': bind_to = optarg; break;
		default:
			fprintf(stderr, "usage: rttprobe [-c N] [-i S] [-s BYTES] [-W S] [-B SRC] [-j] ADDR\n");
			return 2;
		}
	}
	if (optind >= argc || inet_pton(AF_INET, argv[optind], &dst.sin_addr) != 1) {
		fprintf(stderr, "rttprobe: '%s' is not an IPv4 address\n",
			optind < argc ? argv[optind] : "");
		return 2;
	}
	if (count < 1 || count > RP_MAX_COUNT || size < 8 || size > 1400 || interval < 0) {
		fprintf(stderr, "rttprobe: count %d, size %d or interval %g out of range\n",
			count, size, interval);
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		perror("rttprobe: raw socket (needs root)");
		return 1;
	}
	if (bind_to && (inet_pton(AF_INET, bind_to, &src.sin_addr) != 1 ||
			bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0)) {
		fprintf(stderr, "rttprobe: cannot use source address '%s'\n", bind_to);
		return 2;
	}
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	rtts = calloc((size_t)count, sizeof(*rtts));
	seen = calloc((size_t)count + 1, sizeof(*seen));
	if (!rtts || !seen)
		return 1;
	sent_ms = calloc((size_t)count + 1, sizeof(*sent_ms));
	if (!sent_ms)
		return 1;
	/* Send every interval like ping -i, whatever the replies do; a reply counts when
	 * it comes within the timeout of its request. Stragglers: wait the timeout after
	 * the last request. */
	for (int seq = 1; seq <= count + 1;) {
		struct timespec now;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double due = seq == 1 ? 0 : sent_ms[seq - 1] + (seq > count ? timeout : interval) * 1e3;
		double rx, rtt;
		uint16_t rseq;
		int wait;

		clock_gettime(CLOCK_REALTIME, &now);
		if (seq > count && got == count)
			break;
		if (ts_ms(&now) >= due) {
			if (seq > count)
				break;
			send_echo(fd, &dst, id, seq, size, &sent_ms[seq]);
			seq++;
			continue;
		}
		wait = (int)ceil(due - ts_ms(&now));
		if (poll(&pfd, 1, wait) <= 0)
			continue;
		while (read_reply(fd, id, &rseq, &rx)) {
			if (rseq < 1 || rseq > count || rseq >= seq || seen[rseq])
				continue;
			rtt = rx - sent_ms[rseq];
			if (rtt > timeout * 1e3)
				continue;
			seen[rseq] = true;
			rtts[got++] = rtt;
			sum += rtt;
			sum2 += rtt * rtt;
			if (!json)
				printf("seq %u rtt_ms %.3f\n", rseq, rtt);
		}
	}
	qsort(rtts, (size_t)got, sizeof(*rtts), cmp_double);
	if (got) {
		double avg = sum / got;

		printf("{\"sent\":%d,\"received\":%d,\"min_ms\":%.3f,\"avg_ms\":%.3f,"
		       "\"max_ms\":%.3f,\"mdev_ms\":%.3f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,"
		       "\"p99_ms\":%.3f}\n", count, got, rtts[0], avg, rtts[got - 1],
		       sqrt(fmax(0, sum2 / got - avg * avg)), pct(rtts, got, 0.5),
		       pct(rtts, got, 0.9), pct(rtts, got, 0.99));
	} else {
		printf("{\"sent\":%d,\"received\":0}\n", count);
	}
	free(rtts);
	free(seen);
	free(sent_ms);
	close(fd);
	return got ? 0 : 1;
}
