// SPDX-License-Identifier: MIT
/* Data budgets at run time: accounting, the path mask, the state file (budget_state.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget_state.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "session.h"

bool mpt_budget_roll(const struct mpt_budget *b, struct mpt_budget_use *u, int64_t now)
{
	int64_t start = mpt_budget_period_start(b, now);

	if (b->period == MPT_BUDGET_NONE || u->period_start == start)
		return false;
	u->used = 0;
	u->exhausted = false;
	u->period_start = start;
	return true;
}

static int index_of(const struct mpt_config *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->npaths; i++)
		if (cfg->paths[i].budget.period != MPT_BUDGET_NONE &&
		    strncmp(cfg->paths[i].name, name, MPT_NAME_LEN) == 0)
			return (int)i;
	return -1;
}

/* One "path=NAME used=N period_start=T" line into use[]; -EINVAL when malformed. */
static int load_line(const char *line, const struct mpt_config *cfg,
		     struct mpt_budget_use *use, int64_t now)
{
	char name[MPT_NAME_LEN + 1];
	unsigned long long used;
	long long start;
	int n = 0, i;

	if (sscanf(line, "path=%16s used=%llu period_start=%lld%n", name, &used, &start,
		   &n) != 3 || (line[n] && line[n] != '\n'))
		return -EINVAL;
	i = index_of(cfg, name);
	if (i < 0)
		return 0;			/* no budget on it any more */
	use[i] = (struct mpt_budget_use){ .used = used, .period_start = start };
	if (mpt_budget_roll(&cfg->paths[i].budget, &use[i], now))
		log_info("budget of path %s: a new period began while stopped", name);
	use[i].exhausted = use[i].used >= cfg->paths[i].budget.bytes;
	return 0;
}

int mpt_budget_state_load(const char *file, const struct mpt_config *cfg,
			  struct mpt_budget_use *use, int64_t now, char *err, size_t errlen)
{
	char line[256];
	FILE *f;
	int lineno = 0, ret;

	memset(use, 0, sizeof(*use) * MPT_MAX_PATHS);
	for (unsigned i = 0; i < cfg->npaths; i++)
		mpt_budget_roll(&cfg->paths[i].budget, &use[i], now);
	f = fopen(file, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, errlen, "StateFile '%s': %s", file, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (load_line(line, cfg, use, now) < 0)
			log_warnx("%s:%d: '%.*s' is not a budget line, skipped", file, lineno,
				  (int)strcspn(line, "\n"), line);
	}
	fclose(f);
	return 0;
}

int mpt_budget_state_save(const char *file, const struct mpt_config *cfg,
			  const struct mpt_budget_use *use, char *err, size_t errlen)
{
	char tmp[MPT_PATH_LEN + 8];
	FILE *f;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "we");
	if (!f)
		goto fail;
	fprintf(f, "# mptund data budget usage; rewritten by the daemon\n");
	for (unsigned i = 0; i < cfg->npaths; i++)
		if (cfg->paths[i].budget.period != MPT_BUDGET_NONE)
			fprintf(f, "path=%s used=%" PRIu64 " period_start=%" PRId64 "\n",
				cfg->paths[i].name, use[i].used, use[i].period_start);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		fclose(f);
		goto fail_unlink;
	}
	if (fclose(f) != 0 || rename(tmp, file) != 0)
		goto fail_unlink;
	return 0;

fail_unlink:
	ret = -errno;
	unlink(tmp);
	snprintf(err, errlen, "StateFile '%s': %s", file, strerror(-ret));
	return ret;
fail:
	ret = -errno;
	snprintf(err, errlen, "StateFile '%s': %s", tmp, strerror(-ret));
	return ret;
}

int mpt_budget_index(const struct mpt_daemon *d, const char *name)
{
	return d->budgets.any ? index_of(&d->cfg, name) : -1;
}

/* Add what path p (budget k) sent since the last call. */
static void account(struct mpt_daemon *d, struct mpt_path *p, int k)
{
	struct mpt_budget_use *u = &d->budgets.use[k];
	uint64_t sent = p->st.tx_bytes;

	/* counters that restarted count from zero */
	u->used += sent >= p->budget_seen ? sent - p->budget_seen : sent;
	d->budgets.dirty |= sent != p->budget_seen;
	p->budget_seen = sent;
	if (!u->exhausted && u->used >= d->cfg.paths[k].budget.bytes) {
		u->exhausted = true;
		log_info("path %s: data budget used up (%" PRIu64 " bytes): used only when "
			 "no other path is up", p->name, u->used);
	}
}

void mpt_budgets_apply(struct mpt_session *s)
{
	struct mpt_daemon *d = s->d;
	struct mpt_budgets *bs = &d->budgets;
	uint32_t out = 0, ok = 0;

	if (!bs->any)
		return;
	for (unsigned i = 0; i < s->npaths; i++) {
		int k = index_of(&d->cfg, s->paths[i].name);

		if (k < 0) {
			ok |= (uint32_t)s->views[i].up << i;
			continue;
		}
		account(d, &s->paths[i], k);
		if (bs->use[k].exhausted && s->views[i].up)
			out |= 1u << i;
		else
			ok |= (uint32_t)s->views[i].up << i;
	}
	if (!ok)
		return;			/* no other path up: the exhausted ones stay */
	for (unsigned i = 0; i < s->npaths; i++)
		if (out >> i & 1)
			s->views[i].up = false;
}

static void save(struct mpt_daemon *d)
{
	char err[256];

	if (mpt_budget_state_save(d->cfg.state_file, &d->cfg, d->budgets.use, err,
				  sizeof(err)) < 0) {
		d->budgets.save_errors++;
		log_warnx("%s", err);
		return;
	}
	d->budgets.saves++;
	d->budgets.dirty = false;
}

static void timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mpt_daemon *d = (struct mpt_daemon *)((char *)w -
		offsetof(struct mpt_daemon, budgets.timer));
	int64_t now = (int64_t)time(NULL);

	for (unsigned i = 0; i < d->cfg.npaths; i++) {
		if (!mpt_budget_roll(&d->cfg.paths[i].budget, &d->budgets.use[i], now))
			continue;
		log_info("path %s: new data budget period", d->cfg.paths[i].name);
		d->budgets.dirty = true;
	}
	if (d->budgets.dirty)
		save(d);
}

/*
 * systemd creates StateDirectory=mptund owned by root (the unit runs as root and the
 * daemon drops to User= itself), and the state file is replaced by rename, which needs
 * a writable directory: while still root, hand that one directory, when root owns it,
 * to User (and Group). Any other directory is the administrator's to prepare.
 */
static void hand_state_dir(const struct mpt_config *cfg)
{
	static const char dir[] = MPT_STATE_DIR;
	const struct passwd *pw;
	const struct group *gr;
	struct stat st;
	gid_t gid;

	if (!cfg->user[0] || geteuid() != 0 ||
	    strncmp(cfg->state_file, MPT_STATE_DIR "/", sizeof(dir)) != 0 ||
	    strchr(cfg->state_file + sizeof(dir), '/'))
		return;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0)
		return;
	pw = getpwnam(cfg->user);
	if (!pw)
		return;			/* the privilege drop reports it */
	gr = cfg->group[0] ? getgrnam(cfg->group) : NULL;
	gid = gr ? gr->gr_gid : pw->pw_gid;
	if (chown(dir, pw->pw_uid, gid) < 0)
		log_warn("%s: chown to %s", dir, cfg->user);
}

int mpt_budgets_open(struct mpt_daemon *d, char *err, size_t errlen)
{
	struct mpt_budgets *bs = &d->budgets;
	int ret;

	memset(bs, 0, sizeof(*bs));
	for (unsigned i = 0; i < d->cfg.npaths; i++)
		bs->any |= d->cfg.paths[i].budget.period != MPT_BUDGET_NONE;
	if (!bs->any)
		return 0;
	hand_state_dir(&d->cfg);
	ret = mpt_budget_state_load(d->cfg.state_file, &d->cfg, bs->use, (int64_t)time(NULL),
				    err, errlen);
	if (ret < 0)
		return ret;
	ev_timer_init(&bs->timer, timer_cb, MPT_BUDGET_SAVE_S, MPT_BUDGET_SAVE_S);
	ev_timer_start(d->loop, &bs->timer);
	bs->timer_on = true;
	return 0;
}

void mpt_budgets_close(struct mpt_daemon *d)
{
	struct mpt_budgets *bs = &d->budgets;

	if (!bs->any)
		return;
	if (bs->timer_on)
		ev_timer_stop(d->loop, &bs->timer);
	bs->timer_on = false;
	for (unsigned i = 0; i < d->nsessions; i++) {	/* bytes since the last refresh */
		struct mpt_session *s = &d->sessions[i];

		for (unsigned j = 0; j < s->npaths; j++) {
			int k = index_of(&d->cfg, s->paths[j].name);

			if (k >= 0)
				account(d, &s->paths[j], k);
		}
	}
	save(d);
}
