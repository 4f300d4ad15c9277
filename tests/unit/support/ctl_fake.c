// SPDX-License-Identifier: MIT
/* Fake daemon for the control tests (see ctl_fake.h); also shows the handler idiom. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <mptund/sched.h>

#include "ctl_fake.h"

static const struct mpt_param fake_params[] = {
	{ .name = "min_frac", .type = MPT_PARAM_DOUBLE,
	  .offset = offsetof(struct fake_sched, min_frac), .min = 0.01, .max = 1, .def = 0.1,
	  .help = "lowest live-window fraction (ACPF sec. 3)" },
	{ .name = "probe_ms", .type = MPT_PARAM_U32,
	  .offset = offsetof(struct fake_sched, probe_ms), .min = 1, .max = 1000, .def = 10,
	  .help = "probe interval" },
};

static const struct mpt_stat fake_stats[] = {
	{ .name = "cw_frac", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE, .per_path = true,
	  .offset = offsetof(struct fake_sched, cw_frac), .help = "live window fraction" },
	{ .name = "moves", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct fake_sched, moves), .help = "moves" },
};

void ctl_fake_init(struct fake_daemon *d)
{
	memset(d, 0, sizeof(*d));
	d->sched_name = "acpf";
	mpt_param_defaults(fake_params, 2, &d->sched);
	d->sched.cw_frac[0] = 1;
	d->sched.cw_frac[1] = 0.53;
	d->sched.moves = 7;
	d->paths[0] = (struct fake_path){ "wifi", true, 1, 3, 12300, 131072 };
	d->paths[1] = (struct fake_path){ "cell", true, 10, 1, 48000, 65536 };
}

/* nsessions anchor sessions, paged as ctl_glue.c pages them. */
static int f_dump_many(struct fake_daemon *d, const struct mpt_ctl_req *req,
		       struct mpt_ctl_out *out)
{
	uint32_t off = 0, lim = UINT32_MAX, summary = 0, s, end;
	char err[128];

	if (req && (mpt_ctl_req_u32(req, "offset", 0, 0, UINT32_MAX, &off, err, sizeof(err)) ||
		    mpt_ctl_req_u32(req, "limit", UINT32_MAX, 1, UINT32_MAX, &lim, err,
				    sizeof(err)) ||
		    mpt_ctl_req_u32(req, "summary", 0, 0, 1, &summary, err, sizeof(err)))) {
		mpt_ctl_outf(out, "message=%s", err);
		return -EINVAL;
	}
	mpt_ctl_outf(out, "daemon.version=0.1.0");
	mpt_ctl_outf(out, "daemon.role=anchor");
	off = off < d->nsessions ? off : d->nsessions;
	end = lim < d->nsessions - off ? off + lim : d->nsessions;
	for (s = off; s < end && s - off < d->page_max; s++) {
		mpt_ctl_outf(out, "session.%u.peer=ue%u", s, s);
		mpt_ctl_outf(out, "session.%u.state=established", s);
		mpt_ctl_outf(out, "session.%u.sched=minrtt", s);
		mpt_ctl_outf(out, "session.%u.queue_pkts=0", s);
		mpt_ctl_outf(out, "session.%u.tx_bytes=%u", s, 2048u * s);
		if (summary) {
			mpt_ctl_outf(out, "session.%u.paths=2", s);
			mpt_ctl_outf(out, "session.%u.paths_up=%u", s, 1 + s % 2);
		} else {
			mpt_ctl_outf(out, "session.%u.path.0.name=p1", s);
			mpt_ctl_outf(out, "session.%u.path.1.name=p2", s);
		}
	}
	mpt_ctl_outf(out, "page.sessions=%u", d->nsessions);
	if (s < d->nsessions)
		mpt_ctl_outf(out, "page.next=%u", s);
	return out->err;
}

static int f_dump(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out,
		  const char *scope)
{
	struct fake_daemon *d = ctx;

	d->dumps++;
	if (d->nsessions)
		return f_dump_many(d, req, out);
	mpt_ctl_outf(out, "daemon.version=0.1.0");
	mpt_ctl_outf(out, "daemon.instance=test");
	mpt_ctl_outf(out, "daemon.role=ue");
	mpt_ctl_outf(out, "daemon.uptime_ms=%u", 3723000u);
	mpt_ctl_outf(out, "daemon.tun_rx_pkts=%u", 1000u);
	mpt_ctl_outf(out, "session.0.peer=anchor \"1\"");
	mpt_ctl_outf(out, "session.0.state=established");
	mpt_ctl_outf(out, "session.0.sched=%s", d->sched_name);
	mpt_ctl_outf(out, "session.0.queue_pkts=%u", 3u);
	mpt_ctl_outf(out, "session.0.tx_bytes=%u", 1500000u);
	mpt_ctl_outf(out, "session.0.reorder.released_timeout=%u", 2u);
	for (unsigned p = 0; p < 2; p++) {
		const struct fake_path *fp = &d->paths[p];

		mpt_ctl_outf(out, "session.0.path.%u.name=%s", p, fp->name);
		mpt_ctl_outf(out, "session.0.path.%u.state=%s", p, fp->admin_up ? "up" : "admin_down");
		mpt_ctl_outf(out, "session.0.path.%u.cc_state=probe_bw", p);
		mpt_ctl_outf(out, "session.0.path.%u.up=%d", p, fp->admin_up);
		mpt_ctl_outf(out, "session.0.path.%u.cost=%u", p, fp->cost);
		mpt_ctl_outf(out, "session.0.path.%u.srtt_us=%llu", p, (unsigned long long)fp->srtt_us);
		mpt_ctl_outf(out, "session.0.path.%u.min_rtt_us=%llu", p,
			     (unsigned long long)fp->srtt_us - 2000);
		mpt_ctl_outf(out, "session.0.path.%u.cwnd_bytes=%llu", p, (unsigned long long)fp->cwnd);
		mpt_ctl_outf(out, "session.0.path.%u.in_flight_bytes=%u", p, 4096u);
		mpt_ctl_outf(out, "session.0.path.%u.pacing_rate_bytes_per_s=%u", p, 3125000u);
		mpt_ctl_outf(out, "session.0.path.%u.lost_pkts=%u", p, p * 5);
		/* per direction: p1 a DSL-like line whose ACKs ride on p2 */
		mpt_ctl_outf(out, "session.0.path.%u.ack_via=1", p);
		mpt_ctl_outf(out, "session.0.path.%u.acks_away=%u", p, p ? 0 : 700);
		mpt_ctl_outf(out, "session.0.path.%u.rx_bytes=%u", p, p ? 3000000 : 2000000);
		mpt_ctl_outf(out, "session.0.path.%u.ack_tx_bytes=%u", p, p ? 30000 : 0);
		mpt_ctl_outf(out, "session.0.path.%u.tx_rate_bytes_per_s=%u", p, p ? 125000 : 2000);
		mpt_ctl_outf(out, "session.0.path.%u.rx_rate_bytes_per_s=%u", p,
			     p ? 3750000 : 2000000);
		mpt_ctl_outf(out, "session.0.path.%u.ack_tx_rate_bytes_per_s=%u", p, p ? 15000 : 0);
		mpt_ctl_outf(out, "session.0.path.%u.ack_rx_rate_bytes_per_s=%u", p, p ? 500 : 0);
	}
	mpt_ctl_out_sched_stats(out, 0, fake_stats, 2, &d->sched, 2);
	for (unsigned i = 0; i < d->pad_lines; i++)
		mpt_ctl_outf(out, "daemon.pad%u=%0100u", i, i);
	return out->err;
}

static int f_sched(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct fake_daemon *d = ctx;
	char err[128];
	uint32_t s;

	if (mpt_ctl_req_u32(req, "session", 0, 0, 0, &s, err, sizeof(err))) {
		mpt_ctl_outf(out, "message=%s", err);
		return -EINVAL;
	}
	mpt_ctl_outf(out, "sched.name=%s", d->sched_name);
	mpt_ctl_outf(out, "sched.summary=fake cheapest path first");
	return mpt_ctl_out_params(out, "sched.param", fake_params, 2, &d->sched);
}

/* All or nothing: check every key on a copy, then commit. */
static int f_set(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct fake_daemon *d = ctx;
	struct fake_sched copy = d->sched;
	const char *name = NULL;
	char err[160];
	int rc;

	for (unsigned i = 0; i < req->nkv; i++) {
		const char *k = req->kv[i].key, *v = req->kv[i].val;
		const struct mpt_param *p;

		if (!strcmp(k, "session"))
			continue;
		if (!strcmp(k, "sched")) {
			if (!mpt_sched_find(v)) {
				mpt_ctl_outf(out, "message=unknown scheduler '%s'", v);
				return -ENOENT;
			}
			name = mpt_sched_find(v)->name;
			continue;
		}
		if (!strncmp(k, "sched.", 6)) {
			p = mpt_param_find(fake_params, 2, k + 6);
			if (!p) {
				mpt_ctl_outf(out, "message=%s has no tunable '%s'", d->sched_name, k + 6);
				return -ENOENT;
			}
			rc = mpt_param_parse(p, &copy, v, err, sizeof(err));
			if (rc) {
				mpt_ctl_outf(out, "message=%s", err);
				return rc;
			}
			mpt_ctl_outf(out, "%s=%s", k, v);
			continue;
		}
		mpt_ctl_outf(out, "message=no congestion tunable '%s'", k);
		return -ENOENT;
	}
	d->sched = copy;
	if (name)
		d->sched_name = name;
	return 0;
}

static int f_path(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct fake_daemon *d = ctx;
	const char *name = mpt_ctl_req_get(req, "path"), *admin = mpt_ctl_req_get(req, "admin");
	char err[160];
	uint32_t cost;

	for (unsigned p = 0; p < 2; p++) {
		struct fake_path *fp = &d->paths[p];

		if (strcmp(fp->name, name))
			continue;
		if (mpt_ctl_req_u32(req, "cost", fp->cost, 0, 1000000, &cost, err, sizeof(err))) {
			mpt_ctl_outf(out, "message=%s", err);
			return -EINVAL;
		}
		if (admin && strcmp(admin, "up") && strcmp(admin, "down")) {
			mpt_ctl_outf(out, "message=admin: '%s' is not up or down", admin);
			return -EINVAL;
		}
		fp->cost = cost;
		if (admin)
			fp->admin_up = !strcmp(admin, "up");
		return 0;
	}
	mpt_ctl_outf(out, "message=no path '%s'", name);
	return -ENOENT;
}

static int f_reload(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct fake_daemon *d = ctx;

	d->reloads++;
	return 0;
}

const struct mpt_ctl_handlers ctl_fake_handlers = {
	.dump = f_dump,
	.sched = f_sched,
	.set = f_set,
	.path_cmd = f_path,
	.reload = f_reload,
};
