// SPDX-License-Identifier: MIT
/*
 * Reload (SIGHUP, mptund-ctl reload): re-read the configuration and apply what can
 * change without dropping the sessions: the scheduler and its tunables, congestion
 * controllers and their tunables, path costs, weights, capacities and Disabled,
 * anchor peers' AllowedIPs, probe and queue settings, the log level. What needs new
 * sockets, a new TUN or new keys (role, keys, TUN name, addresses, routes, MTU,
 * listen address, cipher, control socket, the set of paths or peers, StateFile and
 * data budgets) is refused
 * with a message naming it: restart for those. A config that does not parse changes
 * nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "daemon.h"
#include "log.h"
#include "sys.h"

static bool same_overrides(const struct mpt_override *a, unsigned na,
			   const struct mpt_override *b, unsigned nb)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (strcasecmp(a[i].name, b[i].name) || strcmp(a[i].value, b[i].value))
			return false;
	return true;
}

#define SAME(field) (memcmp(&o->field, &n->field, sizeof(o->field)) == 0)

/* Data budgets are indexed by [Path] section (budget_state.h): with a budget on any
 * path, the sections' names and budgets must stay as they are. */
static bool same_budgets(const struct mpt_config *o, const struct mpt_config *n)
{
	bool any = false;

	for (unsigned i = 0; i < o->npaths; i++)
		any |= o->paths[i].budget.period != MPT_BUDGET_NONE;
	for (unsigned i = 0; i < n->npaths; i++)
		any |= n->paths[i].budget.period != MPT_BUDGET_NONE;
	if (!any)
		return true;
	if (o->npaths != n->npaths)
		return false;
	for (unsigned i = 0; i < o->npaths; i++)
		if (strcmp(o->paths[i].name, n->paths[i].name) ||
		    memcmp(&o->paths[i].budget, &n->paths[i].budget, sizeof(o->paths[i].budget)))
			return false;
	return true;
}

/* Name the first setting that needs a restart, or NULL. */
static const char *needs_restart(const struct mpt_config *o, const struct mpt_config *n)
{
	if (o->role != n->role)
		return "Role";
	if (!SAME(private_key))
		return "PrivateKey";
	if (strcmp(o->tun_name, n->tun_name))
		return "Name";
	if (o->naddrs != n->naddrs || memcmp(o->addrs, n->addrs, sizeof(o->addrs[0]) * o->naddrs))
		return "Address";
	if (o->nroutes != n->nroutes ||
	    memcmp(o->routes, n->routes, sizeof(o->routes[0]) * o->nroutes))
		return "Route";
	if (mpt_config_inner_mtu(o) != mpt_config_inner_mtu(n))
		return "MTU/OuterMTU";
	if (o->tun_offload != n->tun_offload)
		return "TunOffload";
	if (!SAME(listen))
		return "ListenPort/ListenAddress";
	if (o->cipher != n->cipher)
		return "Cipher";
	if (strcmp(o->ctl_path, n->ctl_path) || strcmp(o->ctl_group, n->ctl_group))
		return "ControlSocket/ControlGroup";
	if (strcmp(o->user, n->user) || strcmp(o->group, n->group))
		return "User/Group";
	if (o->queue_limit != n->queue_limit || o->reorder_buffer != n->reorder_buffer)
		return "QueueLimit/ReorderBuffer";
	if (o->role == MPT_ROLE_UE) {
		if (o->npaths != n->npaths)
			return "the set of [Path] sections";
		for (unsigned i = 0; i < o->npaths; i++) {
			const struct mpt_path_config *a = &o->paths[i], *b = &n->paths[i];

			if (strcmp(a->name, b->name) || strcmp(a->device, b->device) ||
			    memcmp(&a->source, &b->source, sizeof(a->source)) ||
			    memcmp(&a->endpoint, &b->endpoint, sizeof(a->endpoint)))
				return "a path's Name, Device, Source or Endpoint";
		}
	}
	if (strcmp(o->state_file, n->state_file) || !same_budgets(o, n))
		return "StateFile, or a path's Name or Budget while a path has a Budget";
	if (o->npeers != n->npeers)
		return "the set of [Peer] sections";
	for (unsigned i = 0; i < o->npeers; i++)
		if (memcmp(o->peers[i].public_key, n->peers[i].public_key, MPT_KEY_LEN))
			return "a peer's PublicKey (or the order of [Peer] sections)";
	return NULL;
}

static const struct mpt_path_config *path_config(const struct mpt_config *cfg,
						 const char *name)
{
	for (unsigned i = 0; i < cfg->npaths; i++)
		if (strcmp(cfg->paths[i].name, name) == 0)
			return &cfg->paths[i];
	return NULL;
}

static int reload_session(struct mpt_daemon *d, struct mpt_session *s,
			  const struct mpt_config *old, char *err, size_t errlen)
{
	const struct mpt_config *cfg = &d->cfg;
	bool sched_changed = strcasecmp(old->sched, cfg->sched) != 0 ||
		!same_overrides(old->sched_params, old->nsched_params, cfg->sched_params,
				cfg->nsched_params);
	uint64_t now = mpt_now_ns();
	int ret;

	s->peer = &cfg->peers[s->idx < cfg->npeers ? s->idx : 0];
	if (sched_changed) {
		ret = mpt_session_set_sched(s, mpt_sched_find(cfg->sched), err, errlen);
		if (ret < 0)
			return ret;
	}
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];
		const struct mpt_path_config *pc = path_config(cfg, p->name);
		const char *ccname = pc && pc->cc[0] ? pc->cc : cfg->cc;
		const struct mpt_cc_ops *ops = mpt_cc_find(ccname);
		bool was_up = mpt_path_usable(p);

		if (ops != p->cc_ops || !same_overrides(old->cc_params, old->ncc_params,
							cfg->cc_params, cfg->ncc_params)) {
			ret = mpt_path_set_cc(p, ops, cfg, now, err, errlen);
			if (ret < 0)
				return ret;
		}
		if (!pc)
			continue;
		p->cost = pc->cost;
		p->weight = pc->weight;
		p->tags = pc->tags;
		if (pc->capacity || cfg->role == MPT_ROLE_UE)
			p->capacity = pc->capacity;
		if (cfg->role == MPT_ROLE_UE)
			p->admin_up = !pc->disabled;
		if (was_up != mpt_path_usable(p))
			mpt_session_path_changed(s, p, now);
	}
	mpt_daemon_mark(d, s);
	return 0;
}

/* The file's rules replace the running ones (mptund-ctl rule changes included)
 * when they differ; unchanged rules keep their instances and counters. */
static void reload_rules(struct mpt_daemon *d)
{
	struct mpt_ruleset *set = &d->rules;
	bool same = set->n == d->cfg.nrules;
	int ret;

	for (unsigned i = 0; same && i < set->n; i++)
		same = mpt_rule_equal(&set->r[i].rule, &d->cfg.rules[i]);
	if (same)
		return;
	ret = mpt_ruleset_replace(set, d->cfg.rules, d->cfg.nrules);
	if (ret < 0)
		log_warnx("reload: rules kept as they were: %s", strerror(-ret));
	else
		log_info("reload: %u steering rule(s)", set->n);
}

int mpt_daemon_reload(struct mpt_daemon *d, char *err, size_t errlen)
{
	struct mpt_config nc, old;
	const char *what;
	int ret;

	d->st.reloads++;
	ret = mpt_config_load(&nc, d->config_path, err, errlen);
	if (ret < 0)
		goto fail;
	what = needs_restart(&d->cfg, &nc);
	if (what) {
		snprintf(err, errlen, "%s changed: restart mptund to apply it", what);
		mpt_config_free(&nc);
		ret = -EINVAL;
		goto fail;
	}
	/* nothing below can fail on its inputs: schedulers and controllers and every
	 * override were validated by the parser */
	old = d->cfg;
	d->cfg = nc;
	log_set_level(d->cfg.log_level);
	reload_rules(d);
	for (unsigned i = 0; i < d->nsessions; i++) {
		ret = reload_session(d, &d->sessions[i], &old, err, errlen);
		if (ret < 0)
			log_warnx("reload: %s: %s", d->sessions[i].name, err);
	}
	mpt_config_free(&old);
	mpt_daemon_flush_dirty(d, mpt_now_ns());
	log_info("configuration reloaded from %s", d->config_path);
	return 0;
fail:
	d->st.reload_errors++;
	return ret;
}
