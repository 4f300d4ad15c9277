/* SPDX-License-Identifier: MIT */
/*
 * owdprobe: a constant-bitrate UDP flow (voice-like) and its one-way delay and loss,
 * for the testbed. Sender and receiver run in network namespaces of one machine, so
 * they share CLOCK_REALTIME: the one-way delay is the receive stamp (SO_TIMESTAMPNS,
 * the kernel's arrival time) minus the send time carried in the packet.
 *
 *   owdprobe send [-r KBIT] [-l BYTES] [-d SECONDS] [-T TOS] [-B SRC] ADDR PORT
 *   owdprobe recv [-d MAX_SECONDS] [-W IDLE_SECONDS] PORT
 *
 * send: -l bytes of UDP payload every (8 * l / r) ms for -d seconds (default 200 kbit/s,
 * 160 bytes, 10 s: iperf3 -u -b 200k -l 160's packet rate). Each packet carries a magic,
 * its sequence number, the number of packets the sender will send and its send time.
 * recv: collects until no packet came for -W seconds (after the first) or -d seconds
 * passed, then prints one JSON object:
 *   {"planned":N,"received":R,"duplicates":D,"lost":L,"loss_pct":X,
 *    "owd_min_ms":..,"owd_p50_ms":..,"owd_p99_ms":..,"owd_max_ms":..,
 *    "per_s":[[second, sent, lost, p99_ms], ...],
 *    "t0_ns":..,"slow":[[seq, owd_ms], ...]}
 * A packet counts as lost when it never arrived (late packets are received, and show in
 * the delay figures). per_s buckets packets by their send time, from the first packet.
 * slow lists the packets (at most OP_SLOW_MAX) that arrived more than OP_SLOW_MS after
 * the least one-way delay, by sequence number (sent seq x the interval after the
 * first): where a tail came from, packet by packet.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OP_MAGIC 0x6f776470u	/* "owdp" */
#define OP_MAX_PKTS 2000000u
#define OP_SLOW_MS 30.0		/* "slow": this far above the least delay */
#define OP_SLOW_MAX 2000u

struct op_hdr {
	uint32_t magic, seq, planned, interval_us;
	int64_t sent_ns;		/* CLOCK_REALTIME */
};

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return ts_ns(&t);
}

static int usage(void)
{
	fprintf(stderr, "usage: owdprobe send [-r KBIT] [-l BYTES] [-d S] [-T TOS] [-B SRC] ADDR PORT\n"
			"       owdprobe recv [-d MAX_S] [-W IDLE_S] PORT\n");
	return 2;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > 65535) {
		fprintf(stderr, "owdprobe: '%s' is not a port\n", s);
		return -1;
	}
	*port = (uint16_t)v;
	return 0;
}

static int do_send(int argc, char **argv)
{
	double kbit = 200, secs = 10;
	int len = 160, tos = 0, c, fd;
	struct sockaddr_in dst = { .sin_family = AF_INET }, src = { .sin_family = AF_INET };
	const char *bind_to = NULL;
	uint8_t buf[65536] = { 0 };
	struct op_hdr *h = (struct op_hdr *)buf;
	int64_t interval, start;
	uint32_t planned;

	while ((c = getopt(argc, argv, "r:l:d:T:B:")) != -1) {
		switch (c) {
		case 'r': kbit = atof(optarg); break;
		case 'l': len = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'T': tos = (int)strtol(optarg, NULL, 0); break;
		case 'B': bind_to = optarg; break;
		default: return usage();
		}
	}
	if (argc - optind != 2)
		return usage();
	if (inet_pton(AF_INET, argv[optind], &dst.sin_addr) != 1) {
		fprintf(stderr, "owdprobe: '%s' is not an IPv4 address\n", argv[optind]);
		return 2;
	}
	if (parse_port(argv[optind + 1], &dst.sin_port) < 0)
		return 2;
	if (bind_to && inet_pton(AF_INET, bind_to, &src.sin_addr) != 1) {
		fprintf(stderr, "owdprobe: -B '%s' is not an IPv4 address\n", bind_to);
		return 2;
	}
	dst.sin_port = htons(dst.sin_port);
	if (kbit <= 0 || kbit > 1e6 || secs <= 0 || secs > 3600 ||
	    len < (int)sizeof(*h) || len > 1400 || tos < 0 || tos > 255) {
		fprintf(stderr, "owdprobe: rate %g kbit/s, length %d, duration %g s or tos %d "
			"out of range (length %zu..1400)\n", kbit, len, secs, tos, sizeof(*h));
		return 2;
	}
	interval = (int64_t)(8.0 * len / (kbit * 1e3) * 1e9);
	planned = (uint32_t)fmin(secs * 1e9 / (double)interval, OP_MAX_PKTS);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) < 0) {
		perror("owdprobe: socket");
		return 1;
	}
	if (bind_to && bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
		fprintf(stderr, "owdprobe: bind to %s: %s\n", bind_to, strerror(errno));
		return 1;
	}
	start = now_ns(CLOCK_MONOTONIC);
	for (uint32_t seq = 0; seq < planned; seq++) {
		int64_t due = start + (int64_t)seq * interval;
		struct timespec at = { .tv_sec = due / 1000000000, .tv_nsec = due % 1000000000 };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		*h = (struct op_hdr){ .magic = htonl(OP_MAGIC), .seq = seq, .planned = planned,
				      .interval_us = (uint32_t)(interval / 1000),
				      .sent_ns = now_ns(CLOCK_REALTIME) };
		if (sendto(fd, buf, (size_t)len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0 &&
		    errno != ENOBUFS && errno != ECONNREFUSED)
			perror("owdprobe: sendto");
	}
	close(fd);
	return 0;
}

struct op_recv {
	uint32_t planned, received, dups;
	int64_t interval_ns;
	int64_t t0_ns;			/* the first packet's send time, as the first
					 * received one puts it (sent_ns - seq x interval) */
	double *owd;			/* ms per seq; NAN = not received */
};

/* One datagram: check it, note its delay. */
static void take(struct op_recv *r, const uint8_t *buf, ssize_t n, int64_t rx_ns)
{
	const struct op_hdr *h = (const struct op_hdr *)buf;

	if (n < (ssize_t)sizeof(*h) || ntohl(h->magic) != OP_MAGIC)
		return;
	if (!r->owd) {
		if (h->planned == 0 || h->planned > OP_MAX_PKTS)
			return;
		r->planned = h->planned;
		r->interval_ns = h->interval_us ? (int64_t)h->interval_us * 1000 : 1000;
		r->owd = malloc(r->planned * sizeof(*r->owd));
		if (!r->owd)
			exit(1);
		for (uint32_t i = 0; i < r->planned; i++)
			r->owd[i] = NAN;
		r->t0_ns = h->sent_ns - (int64_t)h->seq * r->interval_ns;
	}
	if (h->seq >= r->planned)
		return;
	if (!isnan(r->owd[h->seq])) {
		r->dups++;
		return;
	}
	r->owd[h->seq] = (double)(rx_ns - h->sent_ns) / 1e6;
	r->received++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of the received delays among seq [from, to); NAN when none. */
static double quantile(const struct op_recv *r, uint32_t from, uint32_t to, double q,
		       double *scratch)
{
	uint32_t n = 0;
	int i;

	for (uint32_t s = from; s < to; s++)
		if (!isnan(r->owd[s]))
			scratch[n++] = r->owd[s];
	if (!n)
		return NAN;
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	i = (int)ceil(q * n) - 1;
	return scratch[i < 0 ? 0 : i];
}

static void print_num(const char *key, double v, bool comma)
{
	if (isnan(v))
		printf("\"%s\":null%s", key, comma ? "," : "");
	else
		printf("\"%s\":%.3f%s", key, v, comma ? "," : "");
}

/* The packets more than OP_SLOW_MS above the least delay, closing the per_s array. */
static void report_slow(const struct op_recv *r, double least)
{
	uint32_t n = 0;

	printf("],\"t0_ns\":%lld,\"slow\":[", (long long)r->t0_ns);
	for (uint32_t s = 0; s < r->planned && n < OP_SLOW_MAX && !isnan(least); s++) {
		if (isnan(r->owd[s]) || r->owd[s] <= least + OP_SLOW_MS)
			continue;
		printf("%s[%u,%.3f]", n++ ? "," : "", s, r->owd[s]);
	}
	printf("]");
}

static void report(const struct op_recv *r, double secs_per_bucket)
{
	double *scratch = malloc((r->planned ? r->planned : 1) * sizeof(double));
	uint32_t per = (uint32_t)fmax(1, secs_per_bucket * 1e9 / (double)r->interval_ns);

	if (!scratch)
		exit(1);
	printf("{\"planned\":%u,\"received\":%u,\"duplicates\":%u,\"lost\":%u,",
	       r->planned, r->received, r->dups, r->planned - r->received);
	print_num("loss_pct", r->planned ? 100.0 * (r->planned - r->received) / r->planned
					 : NAN, true);
	print_num("owd_min_ms", quantile(r, 0, r->planned, 0, scratch), true);
	print_num("owd_p50_ms", quantile(r, 0, r->planned, 0.5, scratch), true);
	print_num("owd_p99_ms", quantile(r, 0, r->planned, 0.99, scratch), true);
	print_num("owd_max_ms", quantile(r, 0, r->planned, 1, scratch), true);
	printf("\"per_s\":[");
	for (uint32_t from = 0, k = 0; from < r->planned; from += per, k++) {
		uint32_t to = from + per < r->planned ? from + per : r->planned, lost = 0;
		double p99 = quantile(r, from, to, 0.99, scratch);

		for (uint32_t s = from; s < to; s++)
			lost += isnan(r->owd[s]);
		printf("%s[%u,%u,%u,", k ? "," : "", k, to - from, lost);
		if (isnan(p99))
			printf("null]");
		else
			printf("%.3f]", p99);
	}
	report_slow(r, quantile(r, 0, r->planned, 0, scratch));
	printf("}\n");
	free(scratch);
}

static int do_recv(int argc, char **argv)
{
	double max_s = 600, idle_s = 2;
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_addr.s_addr = INADDR_ANY };
	struct op_recv r = { 0 };
	int c, fd, one = 1;
	int64_t start, last = 0;
	uint16_t port;

	while ((c = getopt(argc, argv, "d:W:")) != -1) {
		switch (c) {
		case 'd': max_s = atof(optarg); break;
		case 'W': idle_s = atof(optarg); break;
		default: return usage();
		}
	}
	if (argc - optind != 1 || parse_port(argv[optind], &port) < 0)
		return usage();
	me.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("owdprobe: receive socket");
		return 1;
	}
	start = now_ns(CLOCK_MONOTONIC);
	for (;;) {
		uint8_t buf[2048], cbuf[256];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t now = now_ns(CLOCK_MONOTONIC), rx_ns = 0;
		ssize_t n;

		if (now - start > (int64_t)(max_s * 1e9) ||
		    (last && now - last > (int64_t)(idle_s * 1e9)))
			break;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recvmsg(fd, &mh, 0);
		if (n < 0)
			continue;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS)
				rx_ns = ts_ns((struct timespec *)CMSG_DATA(cm));
		if (!rx_ns)
			rx_ns = now_ns(CLOCK_REALTIME);
		take(&r, buf, n, rx_ns);
		last = now_ns(CLOCK_MONOTONIC);
	}
	close(fd);
	if (!r.owd) {
		printf("{\"planned\":0,\"received\":0,\"duplicates\":0,\"lost\":0,"
		       "\"loss_pct\":null,\"per_s\":[]}\n");
		free(r.owd);
		return 1;
	}
	report(&r, 1.0);
	free(r.owd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	optind = 2;
	if (!strcmp(argv[1], "send"))
		return do_send(argc, argv);
	if (!strcmp(argv[1], "recv"))
		return do_recv(argc, argv);
	return usage();
}
