// SPDX-License-Identifier: MIT
/* Text views of mptund-ctl (see ctl_view.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_fmt.h"
#include "ctl_view.h"

#define G(...) ctl_kvl_getf(kv, __VA_ARGS__)

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void path_rows(struct ctl_table *t, const struct ctl_kvl *kv, unsigned s,
		      bool with_session)
{
	char pfx[64];
	unsigned np;

	snprintf(pfx, sizeof(pfx), "session.%u.path", s);
	np = ctl_kvl_count(kv, pfx);
	for (unsigned p = 0; p < np; p++) {
		char rtt[32], min[32], var[32], cwnd[32], infl[32], pace[32], bw[32], sidx[16];
		const char *peer = G("session.%u.peer", s);

		snprintf(sidx, sizeof(sidx), "%u", s);
		ctl_human_us(G("session.%u.path.%u.srtt_us", s, p), rtt, sizeof(rtt));
		ctl_human_us(G("session.%u.path.%u.min_rtt_us", s, p), min, sizeof(min));
		ctl_human_us(G("session.%u.path.%u.rttvar_us", s, p), var, sizeof(var));
		ctl_human_bytes(G("session.%u.path.%u.cwnd_bytes", s, p), cwnd, sizeof(cwnd));
		ctl_human_bytes(G("session.%u.path.%u.in_flight_bytes", s, p), infl, sizeof(infl));
		ctl_human_rate(G("session.%u.path.%u.pacing_rate_bytes_per_s", s, p), pace,
			       sizeof(pace));
		ctl_human_rate(G("session.%u.path.%u.btlbw_bytes_per_s", s, p), bw, sizeof(bw));
		if (with_session) {
			const char *row[] = {
				sidx, or_dash(peer), G("session.%u.path.%u.name", s, p),
				G("session.%u.path.%u.state", s, p), G("session.%u.path.%u.cost", s, p),
				rtt, var, min, cwnd, infl, bw,
				G("session.%u.path.%u.lost_pkts", s, p),
			};
			ctl_table_row(t, row);
		} else {
			const char *row[] = {
				G("session.%u.path.%u.name", s, p), G("session.%u.path.%u.state", s, p),
				rtt, min, cwnd, infl, pace, G("session.%u.path.%u.cc_state", s, p),
			};
			ctl_table_row(t, row);
		}
	}
}

void ctl_view_status(FILE *f, const struct ctl_kvl *kv)
{
	unsigned ns = ctl_kvl_count(kv, "session");
	struct ctl_table t;
	char up[32], sess[16];

	ctl_table_init(&t, 2);
	snprintf(sess, sizeof(sess), "%u", ns);
	ctl_table_row(&t, (const char *[]){ "role", G("daemon.role") });
	if (G("daemon.instance"))
		ctl_table_row(&t, (const char *[]){ "instance", G("daemon.instance") });
	ctl_table_row(&t, (const char *[]){ "version", G("daemon.version") });
	ctl_table_row(&t, (const char *[]){ "uptime",
			ctl_human_ms(G("daemon.uptime_ms"), up, sizeof(up)) });
	ctl_table_row(&t, (const char *[]){ "sessions", sess });
	ctl_table_print(&t, f, 0);
	ctl_table_free(&t);
	for (unsigned s = 0; s < ns; s++) {
		fprintf(f, "\nsession %u  peer %s  state %s  sched %s  queue %s pkts\n", s,
			or_dash(G("session.%u.peer", s)), or_dash(G("session.%u.state", s)),
			or_dash(G("session.%u.sched", s)), or_dash(G("session.%u.queue_pkts", s)));
		ctl_table_init(&t, 8);
		ctl_table_row(&t, (const char *[]){ "PATH", "STATE", "RTT", "MIN RTT", "CWND",
				"IN FLIGHT", "PACING", "CC STATE" });
		path_rows(&t, kv, s, false);
		ctl_table_print(&t, f, 2);
		ctl_table_free(&t);
	}
}

/* The data budgets, a table of their own, only when a path has one. */
static void budget_rows(FILE *f, const struct ctl_kvl *kv, unsigned ns)
{
	struct ctl_table t;
	bool any = false;

	ctl_table_init(&t, 6);
	ctl_table_row(&t, (const char *[]){ "SESSION", "PATH", "BUDGET", "USED", "STATE",
			"PERIOD ENDS (UNIX S)" });
	for (unsigned s = 0; s < ns; s++) {
		char pfx[64], sidx[16], used[32];
		unsigned np;

		snprintf(pfx, sizeof(pfx), "session.%u.path", s);
		np = ctl_kvl_count(kv, pfx);
		snprintf(sidx, sizeof(sidx), "%u", s);
		for (unsigned p = 0; p < np; p++) {
			const char *ex = G("session.%u.path.%u.budget_exhausted", s, p);

			if (!G("session.%u.path.%u.budget", s, p))
				continue;
			any = true;
			ctl_human_bytes(G("session.%u.path.%u.budget_used_bytes", s, p), used,
					sizeof(used));
			ctl_table_row(&t, (const char *[]){ sidx,
					G("session.%u.path.%u.name", s, p),
					G("session.%u.path.%u.budget", s, p), used,
					ex && !strcmp(ex, "1") ? "used up" : "ok",
					or_dash(G("session.%u.path.%u.budget_period_end_s", s, p)) });
		}
	}
	if (any) {
		fprintf(f, "\n");
		ctl_table_print(&t, f, 0);
	}
	ctl_table_free(&t);
}

/* The ACK bytes a path sent as a share of the bytes it received, "-" without both. */
static const char *ack_share(const char *ack, const char *rx, char *buf, size_t len)
{
	double a, r;

	if (!ack || !rx || (r = strtod(rx, NULL)) <= 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	a = strtod(ack, NULL);
	snprintf(buf, len, "%.1f%%", 100.0 * a / r);
	return buf;
}

/* One row per path and direction pair: what it sends (TX, of it ACK frames) and
 * receives (RX, of it ACK frames) per second, the path that carries its ACKs, and
 * the ACK bytes it sent against the bytes it received so far. */
static void direction_rows(FILE *f, const struct ctl_kvl *kv, unsigned ns)
{
	struct ctl_table t;
	bool any = false;

	ctl_table_init(&t, 9);
	ctl_table_row(&t, (const char *[]){ "SESSION", "PATH", "TX", "TX ACKS", "RX", "RX ACKS",
			"ACKS VIA", "ACKS AWAY", "ACK/RX BYTES" });
	for (unsigned s = 0; s < ns; s++) {
		char pfx[64], sidx[16];
		unsigned np;

		snprintf(pfx, sizeof(pfx), "session.%u.path", s);
		np = ctl_kvl_count(kv, pfx);
		snprintf(sidx, sizeof(sidx), "%u", s);
		for (unsigned p = 0; p < np; p++) {
			char tx[32], txa[32], rx[32], rxa[32], share[32];
			const char *via = G("session.%u.path.%u.ack_via", s, p);
			const char *vname = via ? G("session.%u.path.%s.name", s, via) : NULL;

			if (!G("session.%u.path.%u.tx_rate_bytes_per_s", s, p))
				continue;
			any = true;
			ctl_human_rate(G("session.%u.path.%u.tx_rate_bytes_per_s", s, p), tx,
				       sizeof(tx));
			ctl_human_rate(G("session.%u.path.%u.ack_tx_rate_bytes_per_s", s, p),
				       txa, sizeof(txa));
			ctl_human_rate(G("session.%u.path.%u.rx_rate_bytes_per_s", s, p), rx,
				       sizeof(rx));
			ctl_human_rate(G("session.%u.path.%u.ack_rx_rate_bytes_per_s", s, p),
				       rxa, sizeof(rxa));
			ack_share(G("session.%u.path.%u.ack_tx_bytes", s, p),
				  G("session.%u.path.%u.rx_bytes", s, p), share, sizeof(share));
			ctl_table_row(&t, (const char *[]){ sidx,
					G("session.%u.path.%u.name", s, p), tx, txa, rx, rxa,
					or_dash(vname ? vname : via),
					or_dash(G("session.%u.path.%u.acks_away", s, p)), share });
		}
	}
	if (any) {
		fprintf(f, "\n");
		ctl_table_print(&t, f, 0);
	}
	ctl_table_free(&t);
}

void ctl_view_paths(FILE *f, const struct ctl_kvl *kv)
{
	unsigned ns = ctl_kvl_count(kv, "session");
	struct ctl_table t;

	ctl_table_init(&t, 12);
	ctl_table_row(&t, (const char *[]){ "SESSION", "PEER", "PATH", "STATE", "COST", "SRTT",
			"RTTVAR", "MIN RTT", "CWND", "IN FLIGHT", "BTLBW", "LOST" });
	for (unsigned s = 0; s < ns; s++)
		path_rows(&t, kv, s, true);
	ctl_table_print(&t, f, 0);
	ctl_table_free(&t);
	direction_rows(f, kv, ns);
	budget_rows(f, kv, ns);
}

/* One row of the sessions table, filled as its keys go by. */
struct session_row {
	long idx;			/* -1: none yet */
	const char *peer, *state, *sched, *queue, *tx, *rx, *age, *paths, *up;
	unsigned path_ids;		/* distinct session.S.path.P seen (full stats) */
	long last_path;
};

static void session_row_emit(struct ctl_table *t, const struct session_row *r)
{
	char idx[24], np[32], tx[32], rx[32], age[32];

	if (r->idx < 0)
		return;
	snprintf(idx, sizeof(idx), "%ld", r->idx);
	if (r->paths)
		snprintf(np, sizeof(np), "%s/%s", or_dash(r->up), r->paths);
	else
		snprintf(np, sizeof(np), "%u", r->path_ids);
	ctl_human_bytes(r->tx, tx, sizeof(tx));
	ctl_human_bytes(r->rx, rx, sizeof(rx));
	ctl_human_ms(r->age, age, sizeof(age));
	ctl_table_row(t, (const char *[]){ idx, r->peer, r->state, r->sched, np, r->queue, tx,
			rx, age });
}

static void session_row_key(struct session_row *r, const char *field, const char *val)
{
	static const struct { const char *name; size_t off; } fields[] = {
		{ "peer", offsetof(struct session_row, peer) },
		{ "state", offsetof(struct session_row, state) },
		{ "sched", offsetof(struct session_row, sched) },
		{ "queue_pkts", offsetof(struct session_row, queue) },
		{ "tx_bytes", offsetof(struct session_row, tx) },
		{ "rx_bytes", offsetof(struct session_row, rx) },
		{ "age_ms", offsetof(struct session_row, age) },
		{ "paths", offsetof(struct session_row, paths) },
		{ "paths_up", offsetof(struct session_row, up) },
	};

	if (!strncmp(field, "path.", 5)) {
		long p = strtol(field + 5, NULL, 10);

		if (p != r->last_path) {
			r->path_ids++;
			r->last_path = p;
		}
		return;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(field, fields[i].name))
			*(const char **)((char *)r + fields[i].off) = val;
}

/* One pass over the reply (the daemon sends each session's keys together), so that
 * thousands of sessions print at once: whatever indices the page holds. */
void ctl_view_sessions(FILE *f, const struct ctl_kvl *kv)
{
	struct session_row r = { .idx = -1, .last_path = -1 };
	struct ctl_table t;

	ctl_table_init(&t, 9);
	ctl_table_row(&t, (const char *[]){ "SESSION", "PEER", "STATE", "SCHED", "PATHS",
			"QUEUE", "TX", "RX", "AGE" });
	for (size_t i = 0; i < kv->n; i++) {
		const char *k = kv->v[i].key;
		char *end;
		long s;

		if (strncmp(k, "session.", 8) || k[8] < '0' || k[8] > '9')
			continue;
		s = strtol(k + 8, &end, 10);
		if (*end != '.')
			continue;
		if (s != r.idx) {
			session_row_emit(&t, &r);
			r = (struct session_row){ .idx = s, .last_path = -1 };
		}
		session_row_key(&r, end + 1, kv->v[i].val);
	}
	session_row_emit(&t, &r);
	ctl_table_print(&t, f, 0);
	ctl_table_free(&t);
	if (G("page.sessions") && G("page.next"))
		fprintf(f, "(%s sessions in all; more from offset=%s)\n", G("page.sessions"),
			G("page.next"));
}

/* Parameter names, in reply order, of keys "sched.param.NAME.value". */
void ctl_view_sched(FILE *f, const struct ctl_kvl *kv)
{
	struct ctl_table t;

	fprintf(f, "scheduler  %s\n", or_dash(G("sched.name")));
	if (G("sched.summary"))
		fprintf(f, "           %s\n", G("sched.summary"));
	if (G("sched.session"))
		fprintf(f, "session    %s\n", G("sched.session"));
	ctl_table_init(&t, 5);
	ctl_table_row(&t, (const char *[]){ "PARAM", "VALUE", "RANGE", "DEFAULT", "HELP" });
	for (size_t i = 0; i < kv->n; i++) {
		const char *k = kv->v[i].key;
		char name[128], range[160];
		size_t l = strlen(k);

		if (strncmp(k, "sched.param.", 12) || l < 18 || strcmp(k + l - 6, ".value"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(l - 18), k + 12);
		if (G("sched.param.%s.values", name))
			snprintf(range, sizeof(range), "%s", G("sched.param.%s.values", name));
		else
			snprintf(range, sizeof(range), "[%s, %s]",
				 or_dash(G("sched.param.%s.min", name)),
				 or_dash(G("sched.param.%s.max", name)));
		ctl_table_row(&t, (const char *[]){ name, kv->v[i].val, range,
				G("sched.param.%s.default", name), G("sched.param.%s.help", name) });
	}
	if (t.nrows > 1) {
		fputc('\n', f);
		ctl_table_print(&t, f, 0);
	}
	ctl_table_free(&t);
}

void ctl_view_sched_list(FILE *f, const struct ctl_kvl *kv)
{
	unsigned n = ctl_kvl_count(kv, "sched");
	struct ctl_table t;

	ctl_table_init(&t, 2);
	ctl_table_row(&t, (const char *[]){ "NAME", "SUMMARY" });
	for (unsigned i = 0; i < n; i++)
		ctl_table_row(&t, (const char *[]){ G("sched.%u.name", i), G("sched.%u.summary", i) });
	ctl_table_print(&t, f, 0);
	ctl_table_free(&t);
}
