/* SPDX-License-Identifier: MIT */
/*
 * delaybridge: a two-port delay line for the testbed, used where the kernel has no
 * sch_netem. It bridges interfaces A and B with AF_PACKET sockets and holds every frame
 * for a configured one-way delay per direction before forwarding it.
 *
 *   UE --- [A] delaybridge [B] --- anchor      direction "ab": read on A, send on B
 *
 * - PACKET_VNET_HDR on both sockets: GSO/GRO super-frames cross intact, with their
 *   checksum-offload state, so offloads need not be disabled on the veths.
 * - FIFO per direction, never reordering: due = max(previous due, now + delay + jitter),
 *   jitter uniform in [-J, +J] (netem's default distribution), clamped at zero.
 * - Random loss per direction, decided on arrival; a bounded queue (bytes and frames),
 *   overflow drops counted separately.
 * - One timerfd per direction armed (absolute CLOCK_MONOTONIC) at the head's due time.
 * - A hop MTU per direction (mtu=N, 0 none): an IP packet above N bytes, or a GSO
 *   super-frame whose segments are, is dropped silently, as by a router whose ICMP
 *   "fragmentation needed" is filtered (drop_mtu counts them). With -i ADDR the hop
 *   answers an IPv4 packet with DF as a router does (RFC 792, RFC 1191): an ICMP
 *   "fragmentation needed" from ADDR with the hop's MTU, quoting the IP header and 8
 *   bytes, queued in the opposite direction (its delay and loss) back to the sender's
 *   MAC (icmp_tx counts them).
 * - Runtime changes: lines on stdin, e.g. "ab delay=16 jitter=0.5 loss=1.2",
 *   "both delay=30", "stats" (delay/jitter in ms, loss in percent). EOF on stdin is
 *   ignored (stdin may be /dev/null).
 * - SIGTERM/SIGINT: print the counters as one JSON line on stdout and exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <mptund/rng.h>

#define DB_MAX_FRAME	(65536 + 512)	/* vnet header + largest veth GSO frame */
#define DB_REC_ALIGN	8
#define DB_WRAP		UINT32_MAX	/* record length marking "continue at offset 0" */
#define DB_RX_BURST	64		/* frames read per wakeup before serving timers */
#define DB_LEAD_MAX	300000		/* cap on the wake-up lead (ns); the rest is spun */
#define DB_SPIN_MAX	400000		/* spin to a due time at most this far ahead (ns) */

struct db_rec {
	uint64_t due;			/* CLOCK_MONOTONIC ns */
	uint32_t len;
	uint32_t pad;
};

struct db_params {
	uint64_t delay_ns;
	uint64_t jitter_ns;
	double loss;			/* probability in [0, 1] */
	uint32_t mtu;			/* largest IP packet passed; 0 = any */
	uint32_t icmp_src;		/* -i: frag needed sent from it (network order); 0 none */
};

struct db_stats {
	uint64_t rx, rx_bytes, tx, tx_bytes;
	uint64_t drop_loss, drop_queue, drop_trunc, tx_err, drop_mtu, icmp_tx;
	uint64_t max_queue_bytes;
	uint64_t late_sum_ns, late_max_ns, late_over_100us;	/* send time - due time */
};

struct db_dir {
	const char *name;		/* "ab" or "ba" */
	int rx_fd, tx_fd, timer_fd;
	struct db_params p;
	uint8_t *ring;
	size_t cap, head, tail;		/* byte offsets; head == tail means empty */
	size_t used;			/* bytes of records in the ring, incl. wrap waste */
	uint32_t frames, limit_frames;
	uint64_t last_due;
	uint64_t armed;			/* time the timer is armed for; 0 = disarmed */
	uint64_t lead_ns;		/* arm this much early: EWMA of timer wake-up lateness */
	struct db_stats st;
};

struct db {
	struct db_dir dir[2];
	struct mpt_rng rng;
	uint8_t scratch[DB_MAX_FRAME];
	char line[512];
	size_t linelen;
	bool stdin_open;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static size_t rec_size(uint32_t len)
{
	size_t n = sizeof(struct db_rec) + len;

	return (n + DB_REC_ALIGN - 1) & ~(size_t)(DB_REC_ALIGN - 1);
}

static int open_port(const char *ifname, int *out)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int one = 1, rcvbuf = 8 << 20, fd;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "delaybridge: interface '%s': %s\n", ifname, strerror(errno));
		return -ENODEV;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int err = -errno;

		fprintf(stderr, "delaybridge: socket on '%s': %s\n", ifname, strerror(errno));
		close(fd);
		return err;
	}
	/* Bursts of GSO frames: a generous receive buffer (root may exceed rmem_max). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	*out = fd;
	return 0;
}

/* Contiguous space for a record of up to DB_MAX_FRAME bytes at head, or NULL. */
static struct db_rec *ring_reserve(struct db_dir *d)
{
	size_t need = rec_size(DB_MAX_FRAME);

	if (d->limit_frames && d->frames >= d->limit_frames)
		return NULL;
	if (d->used == 0)
		d->head = d->tail = 0;
	if (d->head >= d->tail && d->used < d->cap) {
		if (d->cap - d->head >= need)
			return (struct db_rec *)(d->ring + d->head);
		if (d->tail > need) {	/* wrap: mark the end, continue at 0 */
			if (d->cap - d->head >= sizeof(struct db_rec))
				((struct db_rec *)(d->ring + d->head))->len = DB_WRAP;
			d->used += d->cap - d->head;
			d->head = 0;
			return (struct db_rec *)d->ring;
		}
		return NULL;
	}
	if (d->head < d->tail && d->tail - d->head > need)
		return (struct db_rec *)(d->ring + d->head);
	return NULL;
}

static struct db_rec *ring_front(struct db_dir *d)
{
	struct db_rec *r;

	if (!d->used)
		return NULL;
	if (d->cap - d->tail < sizeof(struct db_rec) ||
	    ((struct db_rec *)(d->ring + d->tail))->len == DB_WRAP) {
		d->used -= d->cap - d->tail;
		d->tail = 0;
	}
	r = (struct db_rec *)(d->ring + d->tail);
	return d->used ? r : NULL;
}

static void arm_timer(struct db_dir *d)
{
	struct db_rec *r = ring_front(d);
	struct itimerspec its = { 0 };

	if (!r) {
		if (d->armed) {
			timerfd_settime(d->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
			d->armed = 0;
		}
		return;
	}
	if (d->armed && d->armed + d->lead_ns == r->due)
		return;
	/* Wake up early by the typical wake-up latency; tx_due spins the remainder. */
	d->armed = r->due > d->lead_ns + 1 ? r->due - d->lead_ns : 1;
	its.it_value.tv_sec = (time_t)(d->armed / 1000000000ULL);
	its.it_value.tv_nsec = (long)(d->armed % 1000000000ULL);
	timerfd_settime(d->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static uint64_t due_time(struct db *db, struct db_dir *d, uint64_t now)
{
	int64_t extra = (int64_t)d->p.delay_ns;
	uint64_t due;

	if (d->p.jitter_ns) {
		double u = mpt_rng_double(&db->rng) * 2.0 - 1.0;

		extra += (int64_t)(u * (double)d->p.jitter_ns);
		if (extra < 0)
			extra = 0;
	}
	due = now + (uint64_t)extra;
	if (due < d->last_due)
		due = d->last_due;	/* FIFO: jitter never reorders */
	d->last_due = due;
	return due;
}

/* The IP packet size a frame (vnet header, Ethernet, IP) puts on a link: a GSO
 * super-frame's segments, each headers (hdr_len, Ethernet included) + gso_size. */
static size_t ip_size(const uint8_t *buf, size_t n)
{
	struct virtio_net_hdr vh;

	if (n < sizeof(vh) + ETH_HLEN)
		return 0;
	memcpy(&vh, buf, sizeof(vh));
	if (vh.gso_type != VIRTIO_NET_HDR_GSO_NONE && vh.gso_size && vh.hdr_len > ETH_HLEN)
		return (size_t)vh.hdr_len - ETH_HLEN + vh.gso_size;
	return n - sizeof(vh) - ETH_HLEN;
}

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* An ICMP "fragmentation needed" (type 3 code 4, RFC 1191 next-hop MTU) for the frame
 * buf (vnet header, Ethernet, IPv4 with DF), queued in the opposite direction rev. */
static void frag_needed(struct db *db, struct db_dir *d, struct db_dir *rev,
			const uint8_t *buf, size_t n)
{
	const size_t vh = sizeof(struct virtio_net_hdr), ip0 = vh + ETH_HLEN;
	const uint8_t *ip = buf + ip0;
	size_t ihl, quote, len;
	struct db_rec *r;
	uint8_t *f, *o, *ic;
	uint16_t v;

	if (n < ip0 + 20 || buf[vh + 12] != 0x08 || buf[vh + 13] != 0x00 ||
	    ip[0] >> 4 != 4 || !(ip[6] & 0x40))
		return;				/* not IPv4 with DF: no answer */
	ihl = (size_t)(ip[0] & 15) * 4;
	if (ihl < 20 || n < ip0 + ihl + 8 || ip[9] == 1)
		return;				/* short, or ICMP itself */
	quote = ihl + 8;
	r = ring_reserve(rev);
	if (!r)
		return;
	f = (uint8_t *)(r + 1);
	len = ip0 + 20 + 8 + quote;
	memset(f, 0, len);			/* vnet header: no GSO, no offload */
	memcpy(f + vh, buf + vh + 6, 6);	/* to the sender's MAC, from its peer's */
	memcpy(f + vh + 6, buf + vh, 6);
	f[vh + 12] = 0x08;
	o = f + ip0;
	o[0] = 0x45;
	o[1] = 0xc0;				/* internetwork control, as routers send */
	v = (uint16_t)(20 + 8 + quote);
	o[2] = (uint8_t)(v >> 8);
	o[3] = (uint8_t)v;
	o[8] = 64;
	o[9] = 1;
	memcpy(o + 12, &d->p.icmp_src, 4);
	memcpy(o + 16, ip + 12, 4);		/* to the packet's source */
	v = csum(o, 20);
	o[10] = (uint8_t)(v >> 8);
	o[11] = (uint8_t)v;
	ic = o + 20;
	ic[0] = 3;
	ic[1] = 4;
	ic[6] = (uint8_t)(d->p.mtu >> 8);
	ic[7] = (uint8_t)d->p.mtu;
	memcpy(ic + 8, ip, quote);
	v = csum(ic, 8 + quote);
	ic[2] = (uint8_t)(v >> 8);
	ic[3] = (uint8_t)v;
	r->len = (uint32_t)len;
	r->due = due_time(db, rev, now_ns());
	rev->head += rec_size(r->len);
	rev->used += rec_size(r->len);
	rev->frames++;
	d->st.icmp_tx++;
}

static void rx_ready(struct db *db, struct db_dir *d)
{
	for (int i = 0; i < DB_RX_BURST; i++) {
		struct db_rec *r = ring_reserve(d);
		uint8_t *buf = r ? (uint8_t *)(r + 1) : db->scratch;
		ssize_t n = recv(d->rx_fd, buf, DB_MAX_FRAME, MSG_TRUNC);
		uint64_t now;

		if (n < 0)
			return;		/* EAGAIN or a transient error: wait for poll */
		now = now_ns();
		d->st.rx++;
		d->st.rx_bytes += (uint64_t)n;
		if (n > DB_MAX_FRAME) {
			d->st.drop_trunc++;
			continue;
		}
		if (!r) {
			d->st.drop_queue++;
			continue;
		}
		if (d->p.mtu && ip_size(buf, (size_t)n) > d->p.mtu) {
			d->st.drop_mtu++;
			if (d->p.icmp_src)
				frag_needed(db, d, &db->dir[d == &db->dir[0]], buf, (size_t)n);
			continue;
		}
		if (d->p.loss > 0 && mpt_rng_double(&db->rng) < d->p.loss) {
			d->st.drop_loss++;
			continue;
		}
		r->len = (uint32_t)n;
		r->due = due_time(db, d, now);
		d->head += rec_size(r->len);
		d->used += rec_size(r->len);
		d->frames++;
		if (d->used > d->st.max_queue_bytes)
			d->st.max_queue_bytes = d->used;
	}
}

static void tx_due(struct db_dir *d, bool timer)
{
	uint64_t now = now_ns();
	struct db_rec *r;
	uint64_t exp;

	if (timer) {
		if (read(d->timer_fd, &exp, sizeof(exp)) < 0)
			return;		/* spurious: not expired */
		if (d->armed && now > d->armed) {
			/* Track the wake-up latency: lead += (late - lead) / 8, capped. */
			int64_t late = (int64_t)(now - d->armed);
			int64_t lead = (int64_t)d->lead_ns + (late - (int64_t)d->lead_ns) / 8;

			d->lead_ns = lead < 0 ? 0 : (lead > DB_LEAD_MAX ? DB_LEAD_MAX : (uint64_t)lead);
		}
		d->armed = 0;
		r = ring_front(d);
		if (r && r->due > now && r->due - now <= DB_SPIN_MAX)
			while ((now = now_ns()) < r->due)
				;	/* the last few tens of us: spin, a timer is coarser */
	}
	while ((r = ring_front(d)) && r->due <= now) {
		uint64_t late = now - r->due;

		if (send(d->tx_fd, r + 1, r->len, MSG_DONTWAIT) < 0) {
			d->st.tx_err++;
		} else {
			d->st.tx++;
			d->st.tx_bytes += r->len;
			d->st.late_sum_ns += late;
			if (late > d->st.late_max_ns)
				d->st.late_max_ns = late;
			if (late > 100000)
				d->st.late_over_100us++;
		}
		d->tail += rec_size(r->len);
		d->used -= rec_size(r->len);
		d->frames--;
	}
}

static void print_stats(struct db *db, FILE *out)
{
	fputc('{', out);
	for (int i = 0; i < 2; i++) {
		struct db_dir *d = &db->dir[i];

		fprintf(out, "%s\"%s\":{\"delay_ms\":%.3f,\"jitter_ms\":%.3f,\"loss_pct\":%.3f,"
			"\"rx\":%" PRIu64 ",\"rx_bytes\":%" PRIu64 ",\"tx\":%" PRIu64
			",\"tx_bytes\":%" PRIu64 ",\"drop_loss\":%" PRIu64 ",\"drop_queue\":%" PRIu64
			",\"drop_trunc\":%" PRIu64 ",\"tx_err\":%" PRIu64 ",\"drop_mtu\":%" PRIu64
			",\"icmp_tx\":%" PRIu64 ",\"max_queue_bytes\":%" PRIu64 ",\"queued\":%u,\"late_avg_us\":%.1f"
			",\"late_max_us\":%.1f,\"late_over_100us\":%" PRIu64 "}",
			i ? "," : "", d->name, d->p.delay_ns / 1e6, d->p.jitter_ns / 1e6,
			d->p.loss * 100, d->st.rx, d->st.rx_bytes, d->st.tx, d->st.tx_bytes,
			d->st.drop_loss, d->st.drop_queue, d->st.drop_trunc, d->st.tx_err,
			d->st.drop_mtu, d->st.icmp_tx, d->st.max_queue_bytes, d->frames,
			d->st.tx ? d->st.late_sum_ns / 1e3 / (double)d->st.tx : 0.0,
			d->st.late_max_ns / 1e3, d->st.late_over_100us);
	}
	fputs("}\n", out);
	fflush(out);
}

static int parse_ms(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 100000) {
		fprintf(stderr, "delaybridge: '%s' is not a time in ms\n", s);
		return -EINVAL;
	}
	*ns = (uint64_t)(v * 1e6 + 0.5);
	return 0;
}

static int parse_pct(const char *s, double *p)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 100) {
		fprintf(stderr, "delaybridge: '%s' is not a percentage\n", s);
		return -EINVAL;
	}
	*p = v / 100.0;
	return 0;
}

/* "key=value" applied to one direction's parameters. */
static int apply_kv(struct db_params *p, const char *kv)
{
	const char *v = strchr(kv, '=');

	if (!v) {
		fprintf(stderr, "delaybridge: '%s' is not key=value\n", kv);
		return -EINVAL;
	}
	v++;
	if (!strncmp(kv, "delay=", 6))
		return parse_ms(v, &p->delay_ns);
	if (!strncmp(kv, "jitter=", 7))
		return parse_ms(v, &p->jitter_ns);
	if (!strncmp(kv, "loss=", 5))
		return parse_pct(v, &p->loss);
	if (!strncmp(kv, "mtu=", 4)) {
		char *end;
		unsigned long m = strtoul(v, &end, 10);

		if (*end || m > 65535) {
			fprintf(stderr, "delaybridge: bad mtu '%s'\n", v);
			return -EINVAL;
		}
		p->mtu = (uint32_t)m;
		return 0;
	}
	fprintf(stderr, "delaybridge: unknown key in '%s'\n", kv);
	return -EINVAL;
}

/* One control line: "ab|ba|both key=value..." or "stats". Invalid lines change nothing. */
static void control_line(struct db *db, char *line)
{
	struct db_params p[2] = { db->dir[0].p, db->dir[1].p };
	char *save = NULL, *tok = strtok_r(line, " \t\r", &save);
	bool sel[2];

	if (!tok)
		return;
	if (!strcmp(tok, "stats")) {
		print_stats(db, stdout);
		return;
	}
	sel[0] = !strcmp(tok, "ab") || !strcmp(tok, "both");
	sel[1] = !strcmp(tok, "ba") || !strcmp(tok, "both");
	if (!sel[0] && !sel[1]) {
		fprintf(stderr, "delaybridge: unknown direction '%s' (ab, ba, both, stats)\n", tok);
		return;
	}
	while ((tok = strtok_r(NULL, " \t\r", &save)))
		for (int i = 0; i < 2; i++)
			if (sel[i] && apply_kv(&p[i], tok) < 0)
				return;
	db->dir[0].p = p[0];
	db->dir[1].p = p[1];
}

static void stdin_ready(struct db *db)
{
	ssize_t n = read(STDIN_FILENO, db->line + db->linelen,
			 sizeof(db->line) - 1 - db->linelen);
	char *nl;

	if (n <= 0) {
		if (n == 0 || errno != EAGAIN)
			db->stdin_open = false;
		return;
	}
	db->linelen += (size_t)n;
	db->line[db->linelen] = 0;
	while ((nl = strchr(db->line, '\n'))) {
		*nl = 0;
		control_line(db, db->line);
		memmove(db->line, nl + 1, db->linelen - (size_t)(nl + 1 - db->line) + 1);
		db->linelen -= (size_t)(nl + 1 - db->line);
	}
	if (db->linelen == sizeof(db->line) - 1)
		db->linelen = 0;	/* overlong line: discard */
}

static void usage(FILE *out)
{
	fputs("usage: delaybridge -a IFACE -b IFACE [-d MS] [-D MS] [-j MS] [-J MS]\n"
	      "                   [-l PCT] [-L PCT] [-q BYTES] [-n FRAMES] [-s SEED] [-r PRIO]\n"
	      "  -d/-D  one-way delay a->b / b->a (ms)    -j/-J  jitter a->b / b->a (ms)\n"
	      "  -l/-L  loss a->b / b->a (percent)        -q     queue bytes per direction\n"
	      "  -n     queue frames per direction        -r     SCHED_FIFO priority (0 = off)\n"
	      "  -m/-M  hop MTU a->b / b->a (bytes, 0 = none: larger packets dropped)\n"
	      "  -i     the hop's IPv4 address: an IPv4 packet with DF above the MTU is\n"
	      "         answered with ICMP fragmentation needed from it (default: silent)\n"
	      "stdin: \"ab|ba|both delay=MS jitter=MS loss=PCT mtu=BYTES\" or \"stats\"\n", out);
}

static int parse_args(struct db *db, int argc, char **argv, const char **ifa,
		      const char **ifb, size_t *qbytes, int *prio, uint64_t *seed)
{
	int c;

	while ((c = getopt(argc, argv, "a:b:d:D:j:J:l:L:m:M:i:q:n:s:r:h")) != -1) {
		int err = 0;

		switch (c) {
		case 'a': *ifa = optarg; break;
		case 'b': *ifb = optarg; break;
		case 'd': err = parse_ms(optarg, &db->dir[0].p.delay_ns); break;
		case 'D': err = parse_ms(optarg, &db->dir[1].p.delay_ns); break;
		case 'j': err = parse_ms(optarg, &db->dir[0].p.jitter_ns); break;
		case 'J': err = parse_ms(optarg, &db->dir[1].p.jitter_ns); break;
		case 'l': err = parse_pct(optarg, &db->dir[0].p.loss); break;
		case 'L': err = parse_pct(optarg, &db->dir[1].p.loss); break;
		case 'm': db->dir[0].p.mtu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'M': db->dir[1].p.mtu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'i':
			if (inet_pton(AF_INET, optarg, &db->dir[0].p.icmp_src) != 1 ||
			    !db->dir[0].p.icmp_src) {
				fprintf(stderr, "delaybridge: bad -i address '%s'\n", optarg);
				err = -1;
			}
			db->dir[1].p.icmp_src = db->dir[0].p.icmp_src;
			break;
		case 'q': *qbytes = strtoull(optarg, NULL, 0); break;
		case 'n': db->dir[0].limit_frames = db->dir[1].limit_frames =
				(uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': *seed = strtoull(optarg, NULL, 0); break;
		case 'r': *prio = atoi(optarg); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
		if (err)
			return err;
	}
	if (!*ifa || !*ifb) {
		usage(stderr);
		return -EINVAL;
	}
	if (*qbytes < 4 * (size_t)DB_MAX_FRAME) {
		fprintf(stderr, "delaybridge: queue '%zu' bytes is below 4 frames\n", *qbytes);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct db db;	/* large scratch buffer: keep it off the stack */
	const char *ifa = NULL, *ifb = NULL;
	size_t qbytes = 16 << 20;
	uint64_t seed = 1;
	int prio = 0, sfd;
	struct pollfd pfd[6];
	sigset_t mask;

	db.dir[0].name = "ab";
	db.dir[1].name = "ba";
	if (parse_args(&db, argc, argv, &ifa, &ifb, &qbytes, &prio, &seed) < 0)
		return 2;
	qbytes &= ~(size_t)(DB_REC_ALIGN - 1);
	mpt_rng_seed(&db.rng, seed);
	if (open_port(ifa, &db.dir[0].rx_fd) < 0 || open_port(ifb, &db.dir[1].rx_fd) < 0)
		return 1;
	db.dir[0].tx_fd = db.dir[1].rx_fd;
	db.dir[1].tx_fd = db.dir[0].rx_fd;
	for (int i = 0; i < 2; i++) {
		db.dir[i].cap = qbytes;
		db.dir[i].ring = malloc(qbytes);
		db.dir[i].timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (!db.dir[i].ring || db.dir[i].timer_fd < 0) {
			perror("delaybridge: setup");
			return 1;
		}
	}
	prctl(PR_SET_TIMERSLACK, 1UL);	/* wake up at the due time, not 50 us later */
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "delaybridge: SCHED_FIFO %d: %s (continuing)\n", prio,
				strerror(errno));
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	db.stdin_open = true;

	for (;;) {
		int n = 0;

		for (int i = 0; i < 2; i++) {
			pfd[n++] = (struct pollfd){ .fd = db.dir[i].rx_fd, .events = POLLIN };
			pfd[n++] = (struct pollfd){ .fd = db.dir[i].timer_fd, .events = POLLIN };
		}
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = db.stdin_open ? STDIN_FILENO : -1,
					    .events = POLLIN };
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("delaybridge: poll");
			return 1;
		}
		for (int i = 0; i < 2; i++) {
			if (pfd[2 * i + 1].revents)
				tx_due(&db.dir[i], true);
			if (pfd[2 * i].revents)
				rx_ready(&db, &db.dir[i]);
		}
		for (int i = 0; i < 2; i++) {
			/* Serve frames that fell due while we were reading. */
			struct db_rec *r = ring_front(&db.dir[i]);

			if (r && r->due <= now_ns())
				tx_due(&db.dir[i], false);
			arm_timer(&db.dir[i]);
		}
		if (pfd[4].revents)
			break;
		if (pfd[5].revents)
			stdin_ready(&db);
	}
	print_stats(&db, stdout);
	return 0;
}
