/* SPDX-License-Identifier: MIT */
/*
 * bench-sessions: many UEs against one anchor, in one process speaking the real
 * protocol (the script testbed/bench-sessions sets up the namespaces and the anchor).
 *
 *   bench-sessions keys N
 *       prints the public keys of UEs 0..N-1 (fixed: derived from the index)
 *   bench-sessions run ANCHOR_IP:PORT ANCHOR_PUBKEY SRC_BASE N [WINDOW [PROBE_MS
 *                      [PROBE_MAX_MS]]]
 *       UE i sends its handshake init from SRC_BASE + 1 + i (an IPv4 address the
 *       caller assigned), at most WINDOW (default 64) handshakes outstanding; on the
 *       response it derives the keys and sends one authenticated PROBE on path 0,
 *       which confirms the session at the anchor and makes the path known. Prints
 *       "sessions=N handshakes_per_s=X seconds=Y" and then keeps the sockets open
 *       (the sessions idle) until killed; with PROBE_MS > 0 each UE goes on sending a
 *       PROBE on path 0 every PROBE_MS, as an idle mptund UE does (ProbeInterval),
 *       and answers the anchor's PROBEs with a PROBE_ACK (the path stays up). With
 *       PROBE_MAX_MS > PROBE_MS the interval doubles after each round up to
 *       PROBE_MAX_MS, as an idle mptund UE's does (IdleProbeInterval).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mptund/wire.h>

#include "aead.h"
#include "keys.h"
#include "noise.h"
#include "sys.h"

#define RETRY_NS	(1000 * MPT_NSEC_PER_MSEC)

struct ue {
	struct mpt_noise_local local;
	struct mpt_noise_initiation ini;
	int fd;
	uint64_t sent_ns;
	bool done;
	struct mpt_aead tx, rx;		/* the session's keys: PROBEs, PROBE_ACKs */
	uint32_t remote_index;
	uint64_t pn;
};

static void ue_key(struct mpt_noise_local *l, unsigned i)
{
	uint8_t r[32] = { 0x42 }, priv[32];

	memcpy(r + 1, &i, sizeof(i));
	mpt_key_private_from_random(priv, r);
	if (mpt_noise_local_init(l, priv) < 0)
		exit(1);
}

static int cmd_keys(unsigned n)
{
	struct mpt_noise_local l;
	char b64[MPT_KEY_B64_LEN + 1];

	for (unsigned i = 0; i < n; i++) {
		ue_key(&l, i);
		mpt_key_to_base64(b64, l.pub);
		printf("%s\n", b64);
	}
	return 0;
}

static void send_init(struct ue *u, unsigned i, const uint8_t anchor_pub[32],
		      const struct sockaddr_in *to)
{
	uint8_t msg[MPT_HS_INIT_LEN], eph[32], ts[MPT_TIMESTAMP_LEN];
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	mpt_noise_tai64n(ts, (uint64_t)wall.tv_sec * MPT_NSEC_PER_SEC + (uint64_t)wall.tv_nsec);
	if (mpt_random_bytes(eph, sizeof(eph)) < 0 ||
	    mpt_noise_create_init(&u->ini, &u->local, anchor_pub, MPT_CIPHER_CHACHA20_POLY1305,
				  i + 1, eph, ts, msg) < 0)
		exit(1);
	sendto(u->fd, msg, sizeof(msg), 0, (const struct sockaddr *)to, sizeof(*to));
	u->sent_ns = mpt_now_ns();
}

/* A PROBE on path 0 under the session's keys (the first one confirms the session). */
static void send_probe(struct ue *u, const struct sockaddr_in *to)
{
	struct mpt_hdr h = { .type = MPT_MSG_TRANSPORT, .path_id = 0,
			     .receiver = u->remote_index, .pn = ++u->pn };
	struct mpt_probe pr = { .id = (uint32_t)u->pn, .timestamp = mpt_now_ns(),
				.name = "p1", .cost = 1 };
	uint8_t pkt[256];
	int n;

	mpt_hdr_encode(pkt, sizeof(pkt), &h);
	n = mpt_frame_probe_encode(pkt + MPT_WIRE_HDR_LEN, sizeof(pkt) - MPT_WIRE_HDR_LEN,
				   &pr);
	if (n < 0)
		exit(1);
	n = mpt_aead_seal_packet(&u->tx, pkt, (size_t)n, sizeof(pkt));
	if (n > 0)
		sendto(u->fd, pkt, (size_t)n, 0, (const struct sockaddr *)to, sizeof(*to));
}

/* Answer the anchor's PROBEs in the datagram buf with PROBE_ACKs (PROBE_MS mode). */
static void answer(struct ue *u, uint8_t *buf, size_t len, const struct sockaddr_in *to)
{
	const uint8_t *pos = buf + MPT_WIRE_HDR_LEN, *end;
	struct mpt_frame f;
	struct mpt_hdr h;
	int n, why;

	if (buf[0] != MPT_MSG_TRANSPORT || mpt_hdr_decode(buf, len, &h, &why) < 0 ||
	    (n = mpt_aead_open_packet(&u->rx, buf, len)) < 0)
		return;
	end = pos + n;
	while (mpt_frame_next(&pos, end, &f) == 1) {
		struct mpt_hdr ah = { .type = MPT_MSG_TRANSPORT, .path_id = 0,
				      .receiver = u->remote_index, .pn = ++u->pn };
		uint8_t pkt[128];
		int m;

		if (f.type != MPT_FRAME_PROBE)
			continue;
		mpt_hdr_encode(pkt, sizeof(pkt), &ah);
		m = mpt_frame_probe_ack_encode(pkt + MPT_WIRE_HDR_LEN,
					       sizeof(pkt) - MPT_WIRE_HDR_LEN, f.u.probe.id,
					       f.u.probe.timestamp);
		if (m > 0 && (m = mpt_aead_seal_packet(&u->tx, pkt, (size_t)m, sizeof(pkt))) > 0)
			sendto(u->fd, pkt, (size_t)m, 0, (const struct sockaddr *)to, sizeof(*to));
	}
}

static int open_socket(struct in_addr src)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = src };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "bench-sessions: binding %s: %s\n", inet_ntoa(src),
			strerror(errno));
		exit(1);
	}
	return fd;
}

static int cmd_run(const char *endpoint, const char *pub64, const char *base, unsigned n,
		   unsigned window, unsigned probe_ms, unsigned probe_max_ms)
{
	uint64_t next_probe = 0, ivl_ms = probe_ms;
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint8_t anchor_pub[32];
	struct in_addr src;
	struct ue *ues = calloc(n, sizeof(*ues));
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	unsigned next = 0, done = 0, outstanding = 0;
	char host[64], *colon;
	uint64_t t0;

	snprintf(host, sizeof(host), "%s", endpoint);
	colon = strrchr(host, ':');
	if (!ues || !pfd || !colon || mpt_key_from_base64(anchor_pub, pub64) < 0)
		return 2;
	*colon = '\0';
	to.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &to.sin_addr) != 1 || inet_pton(AF_INET, base, &src) != 1)
		return 2;
	for (unsigned i = 0; i < n; i++) {
		struct in_addr a = { htonl(ntohl(src.s_addr) + 1 + i) };

		ue_key(&ues[i].local, i);
		ues[i].fd = open_socket(a);
		pfd[i].fd = ues[i].fd;
		pfd[i].events = POLLIN;
	}
	t0 = mpt_now_ns();
	while (done < n) {
		uint64_t now = mpt_now_ns();

		while (next < n && outstanding < window) {
			send_init(&ues[next], next, anchor_pub, &to);
			next++;
			outstanding++;
		}
		for (unsigned i = 0; i < next; i++)	/* lost inits and responses */
			if (!ues[i].done && ues[i].sent_ns + RETRY_NS < now)
				send_init(&ues[i], i, anchor_pub, &to);
		if (poll(pfd, next, 100) < 0)
			return 1;
		for (unsigned i = 0; i < next; i++) {
			uint8_t buf[2048];
			struct mpt_keypair kp;
			ssize_t len;
			int why;

			if (!(pfd[i].revents & POLLIN))
				continue;
			while ((len = recv(ues[i].fd, buf, sizeof(buf), 0)) > 0) {
				if (ues[i].done || buf[0] != MPT_MSG_HANDSHAKE_RESP)
					continue;	/* the anchor's probes: idle UEs ignore them */
				if (mpt_noise_consume_response(&ues[i].ini, &ues[i].local, buf,
							       (size_t)len, &kp, &why) < 0)
					continue;
				if (mpt_aead_init(&ues[i].tx, MPT_CIPHER_CHACHA20_POLY1305,
						  kp.send_key) < 0 ||
				    mpt_aead_init(&ues[i].rx, MPT_CIPHER_CHACHA20_POLY1305,
						  kp.recv_key) < 0)
					exit(1);
				ues[i].remote_index = kp.remote_index;
				send_probe(&ues[i], &to);
				mpt_keypair_wipe(&kp);
				ues[i].done = true;
				done++;
				outstanding--;
			}
		}
	}
	{
		double secs = (double)(mpt_now_ns() - t0) / 1e9;

		printf("sessions=%u handshakes_per_s=%.0f seconds=%.2f\n", n, n / secs, secs);
		fflush(stdout);
	}
	for (;;) {		/* idle: drain what the anchor sends, probe if asked to */
		uint64_t now = mpt_now_ns();

		if (probe_ms && now >= next_probe) {
			for (unsigned i = 0; i < n; i++)
				send_probe(&ues[i], &to);
			next_probe = now + ivl_ms * MPT_NSEC_PER_MSEC;
			if (2 * ivl_ms <= probe_max_ms)
				ivl_ms *= 2;
			else if (ivl_ms < probe_max_ms)
				ivl_ms = probe_max_ms;
		}
		if (poll(pfd, n, probe_ms ? (int)MPT_MIN(ivl_ms, 1000) : 1000) > 0)
			for (unsigned i = 0; i < n; i++) {
				uint8_t buf[2048];
				ssize_t len;

				if (!(pfd[i].revents & POLLIN))
					continue;
				while ((len = recv(ues[i].fd, buf, sizeof(buf), 0)) > 0)
					if (probe_ms && len > MPT_WIRE_HDR_LEN)
						answer(&ues[i], buf, (size_t)len, &to);
			}
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "keys"))
		return cmd_keys((unsigned)atoi(argv[2]));
	if (argc >= 6 && argc <= 9 && !strcmp(argv[1], "run"))
		return cmd_run(argv[2], argv[3], argv[4], (unsigned)atoi(argv[5]),
			       argc >= 7 ? (unsigned)atoi(argv[6]) : 64,
			       argc >= 8 ? (unsigned)atoi(argv[7]) : 0,
			       argc == 9 ? (unsigned)atoi(argv[8]) : 0);
	fprintf(stderr, "usage: bench-sessions keys N\n"
		"       bench-sessions run ANCHOR_IP:PORT ANCHOR_PUBKEY SRC_BASE N [WINDOW "
		"[PROBE_MS [PROBE_MAX_MS]]]\n");
	return 2;
}
