// SPDX-License-Identifier: MIT
/* Simulated session: construction from the config, parameters, stats and accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simlink_impl.h"

static int path_init(struct sim_session *s, unsigned i)
{
	struct sim_path *p = &s->p[i];
	struct sim_path_cfg *c = &p->cfg;
	struct mpt_cc_path cp;
	int err;

	*c = s->cfg.paths[i];
	if (!c->mss)
		c->mss = 1200;
	if (!c->ack_every)
		c->ack_every = 2;
	if (!c->ack_delay_ns)
		c->ack_delay_ns = MPT_NSEC_PER_MSEC;
	if (!c->burst_pkts)
		c->burst_pkts = 2;
	if (!c->cc)
		c->cc = "bbr";
	if (c->name)
		snprintf(p->name, sizeof(p->name), "%s", c->name);
	else
		snprintf(p->name, sizeof(p->name), "p%u", i);
	if (!c->link.rate || c->ack_every > 2 || s->cfg.pkt_len > c->mss) {
		fprintf(stderr, "simlink: path %s: bad config (rate %llu, ack_every %u, "
			"mss %u for %u-byte packets)\n", p->name,
			(unsigned long long)c->link.rate, c->ack_every, c->mss,
			s->cfg.pkt_len);
		return -EINVAL;
	}
	p->ops = mpt_cc_find(c->cc);
	if (!p->ops) {
		fprintf(stderr, "simlink: path %s: no controller '%s'\n", p->name, c->cc);
		return -ENOENT;
	}
	err = mpt_recovery_init(&p->rec, NULL,
				s->cfg.ring_pkts ? s->cfg.ring_pkts : 1u << 16);
	if (err)
		return err;
	p->sess = s;
	p->idx = i;
	if (s->sops->on_flow)
		mpt_recovery_set_release(&p->rec, sim_flow_release, p);
	p->up = !c->down;
	mpt_cc_prepare(&p->cc, p->ops);
	cp = sim_cc_path(p);
	p->ops->init(&p->cc, &cp, &s->rng, s->now);
	p->tokens = (double)c->burst_pkts * c->mss;
	return 0;
}

struct sim_session *sim_session_new(const struct sim_session_cfg *cfg)
{
	struct sim_session *s;
	struct mpt_sched_ctx ctx;

	if (cfg->npaths == 0 || cfg->npaths > MPT_MAX_PATHS) {
		fprintf(stderr, "simlink: npaths %u out of range [1, %d]\n", cfg->npaths,
			MPT_MAX_PATHS);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	if (!s->cfg.sched)
		s->cfg.sched = "rr";
	if (!s->cfg.pkt_len)
		s->cfg.pkt_len = 1200;
	if (!s->cfg.queue_pkts)
		s->cfg.queue_pkts = 1000;
	if (!s->cfg.nflows)
		s->cfg.nflows = 1;
	s->npaths = cfg->npaths;
	s->now = 1;		/* virtual time starts just after 0 */
	mpt_rng_seed(&s->rng, cfg->seed);
	mpt_rng_seed(&s->link_rng, cfg->seed ^ 0x5eed11c4ULL);
	s->sops = mpt_sched_find(s->cfg.sched);
	if (!s->sops) {
		fprintf(stderr, "simlink: no scheduler '%s'\n", s->cfg.sched);
		goto fail;
	}
	for (unsigned i = 0; i < s->npaths; i++)
		if (path_init(s, i))
			goto fail;
	mpt_sched_prepare(s->spriv, s->sops);
	ctx = sim_sched_ctx(s);
	s->sops->init(s->spriv, &ctx);
	if (s->sops->tick && s->sops->tick_ns)
		sim_ev_at(s, s->now + s->sops->tick_ns, EV_TICK, 0);
	if (s->cfg.source_rate)
		sim_ev_at(s, s->now, EV_SOURCE, 0);
	if (s->cfg.hook && s->cfg.hook_interval_ns)
		sim_ev_at(s, s->now + s->cfg.hook_interval_ns, EV_HOOK, 0);
	sim_schedule(s);
	return s;
fail:
	sim_session_free(s);
	return NULL;
}

void sim_session_free(struct sim_session *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < s->nheap; k++)
		free(s->heap[k].ack);
	free(s->heap);
	for (unsigned i = 0; i < s->npaths; i++) {
		mpt_recovery_set_release(&s->p[i].rec, NULL, NULL);
		mpt_recovery_free(&s->p[i].rec);
		free(s->p[i].pacer.len);
		free(s->p[i].pacer.at);
	}
	free(s->q.len);
	free(s->q.at);
	free(s);
}

int sim_session_set_source_rate(struct sim_session *s, uint64_t rate)
{
	if (!s->cfg.source_rate || !rate) {
		fprintf(stderr, "simlink: source rate %llu: only a rate source can change "
			"its rate, to a rate > 0\n", (unsigned long long)rate);
		return -EINVAL;
	}
	s->cfg.source_rate = rate;
	return 0;
}

uint64_t sim_now(const struct sim_session *s)
{
	return s->now;
}

int sim_session_set_param(struct sim_session *s, int path, const char *name,
			  const char *value)
{
	const struct mpt_param *tab, *prm;
	size_t n;
	void *blob;
	char err[160];
	int rc;

	if (path >= (int)s->npaths)
		return -EINVAL;
	tab = path < 0 ? s->sops->params : s->p[path].ops->params;
	n = path < 0 ? s->sops->nparams : s->p[path].ops->nparams;
	blob = path < 0 ? (void *)s->spriv : (void *)s->p[path].cc.priv;
	prm = mpt_param_find(tab, n, name);
	if (!prm) {
		fprintf(stderr, "simlink: no parameter '%s'\n", name);
		return -ENOENT;
	}
	rc = mpt_param_parse(prm, blob, value, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "simlink: %s\n", err);
		return rc;
	}
	if (path < 0 && s->sops->params_changed)
		s->sops->params_changed(s->spriv);
	else if (path >= 0 && s->p[path].ops->params_changed)
		s->p[path].ops->params_changed(&s->p[path].cc);
	return 0;
}

uint64_t sim_session_generated(const struct sim_session *s)
{
	return s->generated;
}

uint64_t sim_session_source_drops(const struct sim_session *s)
{
	return s->source_drops;
}

uint32_t sim_session_queue_pkts(const struct sim_session *s)
{
	return (uint32_t)s->q.n;
}

void *sim_session_sched_priv(struct sim_session *s)
{
	return s->spriv;
}

const struct mpt_sched_ops *sim_session_sched_ops(const struct sim_session *s)
{
	return s->sops;
}

const struct mpt_path_view *sim_session_views(struct sim_session *s)
{
	sim_refresh_views(s);
	return s->views;
}

void sim_session_reset_stats(struct sim_session *s)
{
	for (unsigned i = 0; i < s->npaths; i++) {
		struct sim_path *p = &s->p[i];

		memset(&p->st, 0, sizeof(p->st));
		p->st.since_ns = s->now;
		p->st.queue_max = p->q_bytes;
		p->q_changed_ns = s->now;
	}
}

const struct sim_path_stats *sim_path_stats(const struct sim_session *s, unsigned i)
{
	return &s->p[i].st;
}

double sim_path_queue_mean(const struct sim_session *s, unsigned i)
{
	const struct sim_path *p = &s->p[i];
	double area = p->st.queue_area +
		      (double)p->q_bytes * (double)(s->now - p->q_changed_ns);

	return s->now > p->st.since_ns ? area / (double)(s->now - p->st.since_ns) : 0;
}

double sim_path_rtt_mean_ns(const struct sim_session *s, unsigned i)
{
	const struct sim_path_stats *st = &s->p[i].st;

	return st->rtt_samples ? st->rtt_sum_ns / (double)st->rtt_samples : 0;
}

uint64_t sim_path_queue_bytes(const struct sim_session *s, unsigned i)
{
	return s->p[i].q_bytes;
}

double sim_path_goodput(const struct sim_session *s, unsigned i)
{
	const struct sim_path_stats *st = &s->p[i].st;
	uint64_t dt = s->now - st->since_ns;

	return dt ? (double)st->delivered_bytes * 1e9 / (double)dt : 0;
}

struct mpt_cc *sim_path_cc(struct sim_session *s, unsigned i)
{
	return &s->p[i].cc;
}

const struct mpt_cc_ops *sim_path_cc_ops(const struct sim_session *s, unsigned i)
{
	return s->p[i].ops;
}

const struct mpt_recovery *sim_path_recovery(const struct sim_session *s, unsigned i)
{
	return &s->p[i].rec;
}

struct sim_link_cfg *sim_path_link(struct sim_session *s, unsigned i)
{
	return &s->p[i].cfg.link;
}

void sim_path_set_up(struct sim_session *s, unsigned i, bool up)
{
	struct sim_path *p = &s->p[i];
	struct mpt_sched_ctx ctx;

	if (p->up == up)
		return;
	p->up = up;
	if (!up) {
		struct mpt_cc_path cp;

		/* what waited in the pacer is gone with the path */
		p->st.lost_pkts += p->pacer.n;
		p->st.lost_bytes += p->pacer.bytes;
		while (p->pacer.n)
			sim_fifo_pop(&p->pacer);
		mpt_recovery_reset(&p->rec);
		p->loss_gen++;
		p->loss_at = 0;
		p->pto_gen++;
		p->pto_backoff = 0;
		cp = sim_cc_path(p);
		if (p->ops->on_path_reset)
			p->ops->on_path_reset(&p->cc, &cp, s->now);
	}
	if (s->sops->on_path_change) {
		ctx = sim_sched_ctx(s);
		s->sops->on_path_change(s->spriv, &ctx, i, up);
	}
	sim_schedule(s);
}
