// SPDX-License-Identifier: MIT
/* Steering thresholds with hysteresis and the event queue (steer.h). */
#include <string.h>

#include "steer.h"

#define WINDOW_GIVE_UP 10	/* windows without min_pkts after which the loss rate is
				 * judged on what was sent (an idle path gets probes only) */

void mpt_steer_event(struct mpt_steer *st, uint64_t t, uint8_t kind, unsigned path,
		     bool on, double value, double threshold)
{
	struct mpt_sched_event *e;

	if (st->qlen == MPT_STEER_EVQ) {	/* drop the oldest */
		st->qhead = (st->qhead + 1) % MPT_STEER_EVQ;
		st->qlen--;
		st->ev_dropped++;
	}
	e = &st->q[(st->qhead + st->qlen) % MPT_STEER_EVQ];
	*e = (struct mpt_sched_event){ .t_ns = t, .kind = kind, .path = (uint8_t)path,
				       .on = on, .value = value, .threshold = threshold };
	st->qlen++;
}

unsigned mpt_steer_drain(struct mpt_steer *st, struct mpt_sched_event *ev, unsigned max)
{
	unsigned n = 0;

	while (st->qlen && n < max) {
		ev[n++] = st->q[st->qhead];
		st->qhead = (st->qhead + 1) % MPT_STEER_EVQ;
		st->qlen--;
	}
	return n;
}

/* One hysteresis state: enter above level, leave below level x (1 - hyst), each only
 * after hold_ns in the current state. Returns true when the state changed. */
static bool judge(bool *bad, uint64_t *since, double v, double level,
		  const struct mpt_steer_thr *thr, uint64_t now)
{
	uint64_t hold = (uint64_t)thr->hold_ms * MPT_NSEC_PER_MSEC;

	if (now - *since < hold)
		return false;
	if (!*bad && v > level) {
		*bad = true;
	} else if (*bad && v < level * (1 - thr->hyst)) {
		*bad = false;
	} else {
		return false;
	}
	*since = now;
	return true;
}

static void eval_rtt(struct mpt_steer *st, const struct mpt_steer_thr *thr,
		     const struct mpt_path_view *v, unsigned i, uint64_t now)
{
	struct mpt_steer_path *p = &st->p[i];
	double ms = (double)v->srtt_ns / (double)MPT_NSEC_PER_MSEC;

	if (!thr->rtt_ms) {
		p->rtt_bad = false;
		return;
	}
	if (!v->srtt_ns || !judge(&p->rtt_bad, &p->rtt_since, ms, thr->rtt_ms, thr, now))
		return;
	st->crossings++;
	mpt_steer_event(st, now, MPT_SCHED_EV_RTT, i, p->rtt_bad, ms,
			p->rtt_bad ? thr->rtt_ms : thr->rtt_ms * (1 - thr->hyst));
}

static void eval_loss(struct mpt_steer *st, const struct mpt_steer_thr *thr,
		      const struct mpt_path_view *v, unsigned i, uint64_t now)
{
	struct mpt_steer_path *p = &st->p[i];
	uint64_t win = (uint64_t)thr->window_ms * MPT_NSEC_PER_MSEC;
	uint64_t sent, lost;

	if (v->sent_pkts < p->win_sent || v->lost_pkts < p->win_lost) {
		p->win_t = now;			/* the path restarted its counters */
		p->win_sent = v->sent_pkts;
		p->win_lost = v->lost_pkts;
	}
	if (now - p->win_t < win)
		return;
	sent = v->sent_pkts - p->win_sent;
	lost = v->lost_pkts - p->win_lost;
	if (sent < thr->min_pkts && (sent == 0 || now - p->win_t < WINDOW_GIVE_UP * win))
		return;
	p->loss_rate = (double)MPT_MIN(lost, sent) / (double)sent;
	p->win_t = now;
	p->win_sent = v->sent_pkts;
	p->win_lost = v->lost_pkts;
	if (thr->loss <= 0) {
		p->loss_bad = false;
		return;
	}
	if (!judge(&p->loss_bad, &p->loss_since, p->loss_rate, thr->loss, thr, now))
		return;
	st->crossings++;
	mpt_steer_event(st, now, MPT_SCHED_EV_LOSS, i, p->loss_bad, p->loss_rate,
			p->loss_bad ? thr->loss : thr->loss * (1 - thr->hyst));
}

void mpt_steer_eval(struct mpt_steer *st, const struct mpt_steer_thr *thr,
		    const struct mpt_sched_ctx *ctx)
{
	uint32_t bad = 0;

	if (st->started && ctx->now < st->next_eval)
		return;
	st->next_eval = ctx->now + MPT_STEER_EVAL_NS;
	if (!st->started) {
		for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
			st->p[i].win_t = ctx->now;
			st->p[i].loss_rate = -1;
			st->p[i].rtt_since = st->p[i].loss_since = ctx->now -
				(uint64_t)thr->hold_ms * MPT_NSEC_PER_MSEC;
			if (i < ctx->npaths) {
				st->p[i].win_sent = ctx->paths[i].sent_pkts;
				st->p[i].win_lost = ctx->paths[i].lost_pkts;
			}
		}
		st->started = true;
	}
	for (unsigned i = 0; i < ctx->npaths; i++) {
		eval_rtt(st, thr, &ctx->paths[i], i, ctx->now);
		eval_loss(st, thr, &ctx->paths[i], i, ctx->now);
		if (st->p[i].rtt_bad || st->p[i].loss_bad)
			bad |= 1u << i;
	}
	st->bad = bad;
}

uint32_t mpt_steer_up(const struct mpt_sched_ctx *ctx)
{
	uint32_t up = 0;

	for (unsigned i = 0; i < ctx->npaths; i++)
		up |= (uint32_t)ctx->paths[i].up << i;
	return up;
}

uint32_t mpt_steer_usable(const struct mpt_steer *st, const struct mpt_sched_ctx *ctx)
{
	uint32_t up = mpt_steer_up(ctx);

	return up & ~st->bad ? up & ~st->bad : up;
}

int mpt_steer_path_by_name(const struct mpt_sched_ctx *ctx, const char *name)
{
	if (!name[0])
		return -1;
	for (unsigned i = 0; i < ctx->npaths; i++)
		if (strncmp(ctx->paths[i].name, name, MPT_NAME_LEN) == 0)
			return (int)i;
	return -1;
}
