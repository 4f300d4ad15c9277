/* SPDX-License-Identifier: MIT */
/*
 * Data budgets at run time (issue 13): the bytes each budgeted path sent in the
 * current period, counted by the core from the paths' send counters at every view
 * refresh; a path whose budget is used up is presented to every scheduler as down
 * while another path is up (so no scheduler can ignore it); the usage is persisted in
 * the StateFile (written to NAME.tmp and renamed) every minute while it changes and
 * at exit, and read back at start, where a period that ended meanwhile starts over.
 *
 * A budget is kept per [Path] section (index = section order) and applies to every
 * session path of that name: on the anchor the downlinks of all UEs together.
 *
 * State file, one line per budgeted path ('#' comments):
 *	path=NAME used=BYTES period_start=UNIX_SECONDS
 */
#ifndef MPTUND_BUDGET_STATE_H
#define MPTUND_BUDGET_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include <mptund/common.h>

#include "budget.h"

struct mpt_config;
struct mpt_daemon;
struct mpt_session;
struct mpt_path_view;

#define MPT_STATE_DIR "/var/lib/mptund"	/* the unit's StateDirectory= */
#define MPT_BUDGET_SAVE_S 60.0		/* state file rewrite interval while used */

struct mpt_budget_use {
	uint64_t used;			/* bytes sent in the current period */
	int64_t period_start;		/* Unix seconds; 0 = none yet */
	bool exhausted;			/* used >= allowance */
};

struct mpt_budgets {
	struct mpt_budget_use use[MPT_MAX_PATHS];	/* by [Path] section */
	bool any;			/* some path has a budget */
	bool dirty;			/* used changed since the last save */
	bool timer_on;
	ev_timer timer;
	uint64_t saves, save_errors;
};

/* Start a new period when now is past the stored one; true when it did. */
bool mpt_budget_roll(const struct mpt_budget *b, struct mpt_budget_use *u, int64_t now);

/* Read file into use[] for cfg's budgeted paths (others are zeroed); entries of an
 * ended period start over. A missing file is a fresh start (0); a line that does not
 * parse is skipped with a warning quoting it. -errno (message in err) when the file
 * exists but cannot be read. */
int mpt_budget_state_load(const char *file, const struct mpt_config *cfg,
			  struct mpt_budget_use *use, int64_t now, char *err, size_t errlen);
/* Write use[] for cfg's budgeted paths to file atomically (FILE.tmp, fsync, rename). */
int mpt_budget_state_save(const char *file, const struct mpt_config *cfg,
			  const struct mpt_budget_use *use, char *err, size_t errlen);

/* Count bytes and hide exhausted paths in s->views (called at every view refresh). */
void mpt_budgets_apply(struct mpt_session *s);

/* Daemon glue: load at start (an unreadable file is an error), save on a timer and at
 * stop. */
int mpt_budgets_open(struct mpt_daemon *d, char *err, size_t errlen);
void mpt_budgets_close(struct mpt_daemon *d);
/* The [Path] index that budgets path name, or -1. */
int mpt_budget_index(const struct mpt_daemon *d, const char *name);

#endif
