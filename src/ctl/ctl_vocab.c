// SPDX-License-Identifier: MIT
/*
 * The control-protocol key vocabulary (include/mptund/ctl.h) as a table, and the
 * lookup that matches a concrete key ("session.0.path.1.srtt_us") against its
 * patterns ('#' = one decimal index); scheduler and congestion-controller statistics
 * are counters when their name ends in "_total", else gauges.
 */
#include <string.h>

#include <mptund/ctl.h>

#define MPT_CTL_ENTRY(pat, kind, help) { pat, MPT_CTL_##kind, help },
const struct mpt_ctl_key mpt_ctl_keys[] = { MPT_CTL_KEYS(MPT_CTL_ENTRY) };
const size_t mpt_ctl_nkeys = sizeof(mpt_ctl_keys) / sizeof(mpt_ctl_keys[0]);

static const struct mpt_ctl_key stat_keys[2][2] = {
	{ { "session.#.sched_stat.*", MPT_CTL_GAUGE, "scheduler statistic (see mptund-sched(7))" },
	  { "session.#.sched_stat.*", MPT_CTL_COUNTER,
	    "scheduler statistic (see mptund-sched(7))" } },
	{ { "session.#.path.#.cc_stat.*", MPT_CTL_GAUGE, "congestion controller statistic" },
	  { "session.#.path.#.cc_stat.*", MPT_CTL_COUNTER, "congestion controller statistic" } },
};

/* Match key against pattern; '#' eats one or more digits, '*' the rest of the key. */
static int match(const char *pat, const char *key)
{
	while (*pat) {
		if (*pat == '*')
			return 1;
		if (*pat == '#') {
			if (*key < '0' || *key > '9')
				return 0;
			while (*key >= '0' && *key <= '9')
				key++;
			pat++;
			continue;
		}
		if (*pat++ != *key++)
			return 0;
	}
	return *key == '\0';
}

const struct mpt_ctl_key *mpt_ctl_key_find(const char *key)
{
	static const char *const marks[2] = { ".sched_stat.", ".cc_stat." };
	const char *name;
	size_t len;

	for (size_t i = 0; i < mpt_ctl_nkeys; i++)
		if (match(mpt_ctl_keys[i].pattern, key))
			return &mpt_ctl_keys[i];
	for (int k = 0; k < 2; k++) {
		if (!match(stat_keys[k][0].pattern, key))
			continue;
		/* NAME follows the mark; a trailing ".P" is the path */
		name = strstr(key, marks[k]) + strlen(marks[k]);
		len = strcspn(name, ".");
		return &stat_keys[k][len >= 6 && !strncmp(name + len - 6, "_total", 6)];
	}
	return NULL;
}
