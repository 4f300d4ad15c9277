/* SPDX-License-Identifier: MIT */
/*
 * A fake daemon behind the control server's handler table, for the control-socket and
 * CLI tests: one UE session with two paths (wifi, cell), a scheduler with two tunables
 * and a per-path statistic. Values are fixed so that outputs can be compared verbatim.
 */
#ifndef MPTUND_TEST_CTL_FAKE_H
#define MPTUND_TEST_CTL_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include <mptund/common.h>

#include "ctl_server.h"

struct fake_sched {
	double min_frac;
	uint32_t probe_ms;
	double cw_frac[MPT_MAX_PATHS];
	uint64_t moves;
};

struct fake_path {
	const char *name;
	bool admin_up;
	uint32_t cost, weight;
	uint64_t srtt_us, cwnd;
};

struct fake_daemon {
	const char *sched_name;
	struct fake_sched sched;
	struct fake_path paths[2];
	unsigned reloads;
	unsigned dumps;
	unsigned pad_lines;	/* extra lines per dump (to make records big) */
	unsigned nsessions;	/* > 0: that many anchor sessions instead of the UE's
				 * one, paged like the daemon (page.next=) */
	unsigned page_max;	/* sessions per reply at most (the daemon's byte cap) */
};

extern const struct mpt_ctl_handlers ctl_fake_handlers;
void ctl_fake_init(struct fake_daemon *d);

#endif
