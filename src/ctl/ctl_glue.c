// SPDX-License-Identifier: MIT
/*
 * The daemon's control-socket handlers: the scheduler's tunables, live changes
 * (scheduler, its tunables, the congestion controllers' tunables: all or nothing),
 * administrative path control and reload; the statistics dump is ctl_dump.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl_glue.h"
#include "ctl_rules.h"
#include "ctl_server.h"
#include "daemon.h"
#include "log.h"
#include "sys.h"

/* session=S: one session, or all (returns the range). */
static int sessions_of(struct mpt_daemon *d, const struct mpt_ctl_req *req,
		       struct mpt_ctl_out *out, unsigned *lo, unsigned *hi)
{
	char err[160];
	uint32_t s;

	*lo = 0;
	*hi = d->nsessions;
	if (!mpt_ctl_req_get(req, "session"))
		return 0;
	if (mpt_ctl_req_u32(req, "session", 0, 0, d->nsessions ? d->nsessions - 1 : 0, &s,
			    err, sizeof(err)) < 0) {
		mpt_ctl_outf(out, "message=%s", err);
		return -ENOENT;
	}
	*lo = s;
	*hi = s + 1;
	return 0;
}

static int h_sched(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct mpt_daemon *d = ctx;
	const struct mpt_session *s;
	unsigned lo, hi;
	int ret = sessions_of(d, req, out, &lo, &hi);

	if (ret < 0)
		return ret;
	s = &d->sessions[lo];
	mpt_ctl_outf(out, "sched.name=%s", s->sched->name);
	mpt_ctl_outf(out, "sched.summary=%s", s->sched->summary ? s->sched->summary : "");
	return mpt_ctl_out_params(out, "sched.param", s->sched->params, s->sched->nparams,
				  s->sched_priv);
}

/* cc.NAME=VALUE: on every path whose controller has the tunable (checked on a copy
 * of the controller's state unless apply). */
static int set_cc_param(struct mpt_session *s, const char *key, const char *val,
			struct mpt_ctl_out *out, bool apply)
{
	const struct mpt_param *p;
	bool found = false;
	char err[256];
	int ret;

	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *path = &s->paths[i];
		struct mpt_cc scc;
		struct mpt_cc *cc = apply ? &path->cc : &scc;

		p = mpt_param_find(path->cc_ops->params, path->cc_ops->nparams,
				   key + 3);
		if (!p || !path->used)
			continue;
		found = true;
		if (!apply)
			scc = path->cc;
		ret = mpt_param_parse(p, cc->priv, val, err, sizeof(err));
		if (ret < 0) {
			mpt_ctl_outf(out, "message=%s", err);
			return ret;
		}
		if (apply && path->cc_ops->params_changed)
			path->cc_ops->params_changed(cc);
	}
	if (!found) {
		mpt_ctl_outf(out, "message=no path's congestion controller has a "
			     "tunable '%s'", key + 3);
		return -ENOENT;
	}
	return 0;
}

/*
 * Check or apply one "set" request. With apply false nothing changes and every
 * value is checked against scratch copies; with apply true the same steps run on
 * the live state, so a request that passed the check cannot fail half-way.
 */
static int set_pass(struct mpt_daemon *d, const struct mpt_ctl_req *req,
		    struct mpt_ctl_out *out, unsigned lo, unsigned hi, bool apply)
{
	const struct mpt_sched_ops *nops = NULL;
	const char *name = mpt_ctl_req_get(req, "sched");
	char err[256];
	int ret;

	if (name) {
		nops = mpt_sched_find(name);
		if (!nops) {
			mpt_ctl_outf(out, "message=unknown scheduler '%s'", name);
			return -ENOENT;
		}
	}
	for (unsigned si = lo; si < hi; si++) {
		struct mpt_session *s = &d->sessions[si];
		const struct mpt_sched_ops *ops = nops ? nops : s->sched;
		unsigned char *scratch = d->ctl_scratch;
		void *blob = s->sched_priv;
		bool sched_touched = false;

		if (!apply) {
			/* scratch: the blob the scheduler will have after the switch */
			if (nops && nops != s->sched)
				mpt_sched_prepare(scratch, nops);
			else
				memcpy(scratch, s->sched_priv, MPT_SCHED_PRIV_SIZE);
			blob = scratch;
		} else if (nops && nops != s->sched) {
			ret = mpt_session_set_sched(s, nops, err, sizeof(err));
			if (ret < 0) {
				mpt_ctl_outf(out, "message=%s", err);
				return ret;
			}
			log_info("%s: scheduler switched to %s", s->name, nops->name);
		}
		for (unsigned k = 0; k < req->nkv; k++) {
			const char *key = req->kv[k].key, *val = req->kv[k].val;
			const struct mpt_param *p;

			if (!strcmp(key, "session") || !strcmp(key, "sched"))
				continue;
			if (!strncmp(key, "sched.", 6)) {
				p = mpt_param_find(ops->params, ops->nparams, key + 6);
				if (!p) {
					mpt_ctl_outf(out, "message=scheduler %s has no tunable "
						     "'%s'", ops->name, key + 6);
					return -ENOENT;
				}
				ret = mpt_param_parse(p, blob, val, err, sizeof(err));
				if (ret < 0) {
					mpt_ctl_outf(out, "message=%s", err);
					return ret;
				}
				sched_touched = true;
				continue;
			}
			if (strncmp(key, "cc.", 3) != 0) {
				mpt_ctl_outf(out, "message=unknown setting '%s'", key);
				return -ENOENT;
			}
			ret = set_cc_param(s, key, val, out, apply);
			if (ret < 0)
				return ret;
		}
		if (apply && sched_touched && s->sched->params_changed)
			s->sched->params_changed(s->sched_priv);
		if (apply)
			mpt_daemon_mark(d, s);
	}
	return 0;
}

static int h_set(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct mpt_daemon *d = ctx;
	unsigned lo, hi;
	int ret = sessions_of(d, req, out, &lo, &hi);

	if (ret < 0)
		return ret;
	ret = set_pass(d, req, out, lo, hi, false);
	if (ret < 0)
		return ret;
	ret = set_pass(d, req, out, lo, hi, true);
	mpt_daemon_flush_dirty(d, mpt_now_ns());
	return ret;
}

static int h_path(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct mpt_daemon *d = ctx;
	const char *name = mpt_ctl_req_get(req, "path"), *admin = mpt_ctl_req_get(req, "admin");
	uint64_t now = mpt_now_ns();
	unsigned lo, hi, found = 0;
	char err[160];
	int ret = sessions_of(d, req, out, &lo, &hi);

	if (ret < 0)
		return ret;
	if (!name) {
		mpt_ctl_outf(out, "message=path= is required");
		return -EINVAL;
	}
	if (admin && strcmp(admin, "up") && strcmp(admin, "down")) {
		mpt_ctl_outf(out, "message=admin: '%s' is not up or down", admin);
		return -EINVAL;
	}
	for (unsigned si = lo; si < hi; si++) {
		struct mpt_session *s = &d->sessions[si];

		for (unsigned i = 0; i < s->npaths; i++) {
			struct mpt_path *p = &s->paths[i];
			uint32_t cost, weight;

			if (!p->used || strcmp(p->name, name) != 0)
				continue;
			if (mpt_ctl_req_u32(req, "cost", p->cost, 0, 1000000, &cost, err,
					    sizeof(err)) < 0 ||
			    mpt_ctl_req_u32(req, "weight", p->weight, 0, 1000000, &weight, err,
					    sizeof(err)) < 0) {
				mpt_ctl_outf(out, "message=%s", err);
				return -EINVAL;
			}
			found++;
			p->cost = cost;
			p->weight = weight;
			if (admin && p->admin_up != !strcmp(admin, "up")) {
				p->admin_up = !strcmp(admin, "up");
				log_info("%s: path %s administratively %s", s->name, p->name,
					 admin);
				if (p->admin_up)
					p->next_probe_ns = now;
				mpt_session_path_changed(s, p, now);
				mpt_session_status_changed(s, p, now);
			}
			mpt_daemon_mark(d, s);
		}
	}
	if (!found) {
		mpt_ctl_outf(out, "message=no path '%s'", name);
		return -ENOENT;
	}
	mpt_daemon_flush_dirty(d, now);
	return 0;
}

static int h_reload(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out)
{
	struct mpt_daemon *d = ctx;
	char err[512];
	int ret = mpt_daemon_reload(d, err, sizeof(err));

	if (ret < 0)
		mpt_ctl_outf(out, "message=%s", err);
	return ret;
}

static const struct mpt_ctl_handlers handlers = {
	.dump = mpt_ctl_dump,
	.sched = h_sched,
	.set = h_set,
	.path_cmd = h_path,
	.reload = h_reload,
	.rule = mpt_ctl_rules_cmd,
};

int mpt_ctl_glue_open(struct mpt_daemon *d, char *err, size_t errlen)
{
	d->ctl = calloc(1, sizeof(*d->ctl));
	if (!d->ctl) {
		snprintf(err, errlen, "control socket: out of memory");
		return -ENOMEM;
	}
	d->ctl_scratch = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	if (!d->ctl_scratch ||
	    mpt_ctl_server_open(d->ctl, d->loop, d->cfg.ctl_path, d->cfg.ctl_group,
				&handlers, d, err, errlen) < 0) {
		if (!d->ctl_scratch)
			snprintf(err, errlen, "control socket: out of memory");
		free(d->ctl_scratch);
		free(d->ctl);
		d->ctl_scratch = NULL;
		d->ctl = NULL;
		return -EINVAL;
	}
	return 0;
}

void mpt_ctl_glue_close(struct mpt_daemon *d)
{
	if (!d->ctl)
		return;
	mpt_ctl_server_close(d->ctl);
	free(d->ctl);
	free(d->ctl_scratch);
	d->ctl = NULL;
	d->ctl_scratch = NULL;
}
