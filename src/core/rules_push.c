// SPDX-License-Identifier: MIT
/*
 * RULES frames (mptund-proto(7)): the anchor provides each UE with its steering rules
 * over the tunnel, as the network provides ATSSS rules (TS 24.193 5.2).
 *
 * Anchor: the rules for the peer (rule.h: Peer= empty or its name) as text, one spec a
 * line, cut into fragments sent in control packets of their own on a usable path,
 * numbered by the rule table's generation. Sent when the UE has not acknowledged that
 * number, again every probe interval until it does. A peer that never had rules is
 * sent nothing (an older UE never sees the frame); once it had some, an empty set
 * clears them.
 *
 * UE: reassembles a set (a new number restarts), parses it whole; a valid set
 * replaces the pushed rules, matched after the UE's own (session_rules.c). Either
 * way the number is acknowledged, so a set the UE refuses (a scheduler it does not
 * have) is not re-sent forever; the refusal is logged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "session_rules.h"

static uint32_t push_seq(const struct mpt_daemon *d)
{
	return d->rules.gen ? d->rules.gen : 1;
}

/* The peer's rules as text; returns the length, 0 with none. */
static size_t peer_text(struct mpt_session *s, char *buf, size_t cap, unsigned *nrules)
{
	const struct mpt_ruleset *set = &s->d->rules;
	size_t used = 0;

	*nrules = 0;
	for (unsigned i = 0; i < set->n; i++) {
		const struct mpt_rule *r = &set->r[i].rule;
		struct mpt_rule copy;
		int n;

		if (r->peer[0] && strcmp(r->peer, s->peer->name) != 0)
			continue;
		copy = *r;
		copy.peer[0] = '\0';		/* the receiver is the peer */
		n = mpt_rule_format(&copy, buf + used, cap - used);
		if (n < 0 || used + (size_t)n + 1 >= cap)
			break;			/* the set is bounded: the rest stays here */
		used += (size_t)n;
		buf[used++] = '\n';
		(*nrules)++;
	}
	return used;
}

/* Send frames[0..len) alone in a control packet on the first usable path. */
static void send_frames(struct mpt_session *s, const uint8_t *frames, size_t len,
			uint64_t now)
{
	for (unsigned i = 0; i < s->npaths; i++)
		if (mpt_path_usable(&s->paths[i]) &&
		    mpt_session_send_frames(s, &s->paths[i], frames, len, now) > 0)
			return;
}

static void push_send(struct mpt_session *s, struct mpt_srules *rl, uint64_t now)
{
	char text[MPT_RULES_FRAGS * MPT_RULES_FRAG_MAX];
	uint8_t frame[MPT_FRAME_HDR_LEN + MPT_RULES_HDR_LEN + MPT_RULES_FRAG_MAX];
	unsigned nrules, count;
	size_t len = peer_text(s, text, sizeof(text), &nrules);

	if (!nrules && !rl->push.told) {
		rl->push.acked = push_seq(s->d);	/* never had rules: nothing to clear */
		return;
	}
	rl->push.told = rl->push.told || nrules;
	count = len ? (unsigned)((len + MPT_RULES_FRAG_MAX - 1) / MPT_RULES_FRAG_MAX) : 1;
	for (unsigned i = 0; i < count; i++) {
		size_t off = (size_t)i * MPT_RULES_FRAG_MAX;
		struct mpt_rules_frag f = {
			.seq = push_seq(s->d), .index = (uint8_t)i, .count = (uint8_t)count,
			.text = (const uint8_t *)text + off,
			.len = (uint16_t)MPT_MIN(len - off, (size_t)MPT_RULES_FRAG_MAX),
		};
		int n = mpt_frame_rules_encode(frame, sizeof(frame), &f);

		if (n > 0)
			send_frames(s, frame, (size_t)n, now);
	}
	log_debug("%s: %u rule(s) pushed (set %u, %u fragment(s))", s->name, nrules,
		  push_seq(s->d), count);
}

void mpt_rules_push_tick(struct mpt_session *s, uint64_t now)
{
	struct mpt_srules *rl;

	if (s->d->cfg.role != MPT_ROLE_ANCHOR || !s->cur.valid)
		return;
	if (!s->rules && !s->d->rules.n)
		return;			/* no rules, never had: the common case */
	rl = mpt_rules_get(s);
	if (!rl || rl->push.acked == push_seq(s->d) ||
	    (rl->push.sent == push_seq(s->d) && now < rl->push.next_ns))
		return;			/* a new set goes at once, a resend waits */
	rl->push.sent = push_seq(s->d);
	rl->push.next_ns = now + s->d->cfg.probe_interval_ns;
	push_send(s, rl, now);
}

void mpt_rules_push_restart(struct mpt_session *s)
{
	struct mpt_srules *rl = s->rules;

	if (!rl)
		return;
	rl->push.acked = 0;		/* anchor: a restarted UE holds no rules */
	rl->push.told = false;
	rl->push.sent = 0;
	rl->push.next_ns = 0;
	if (s->d->cfg.role == MPT_ROLE_UE && rl->push.seq) {
		/* UE: the anchor starts afresh and pushes what it has now */
		mpt_ruleset_free(&rl->pushed);
		rl->push.seq = 0;
	}
}

static void send_ack(struct mpt_session *s, struct mpt_path *p, uint32_t seq, uint64_t now)
{
	struct mpt_rules_frag f = { .seq = seq };
	uint8_t frame[MPT_FRAME_HDR_LEN + MPT_RULES_HDR_LEN];
	int n = mpt_frame_rules_encode(frame, sizeof(frame), &f);

	if (n > 0 && mpt_session_send_frames(s, p, frame, (size_t)n, now) <= 0)
		send_frames(s, frame, (size_t)n, now);
}

/* The whole set is here: parse and install it (or refuse it, logged). */
static void install(struct mpt_session *s, struct mpt_srules *rl)
{
	struct mpt_rule *rules = calloc(MPT_MAX_RULES, sizeof(*rules));
	struct mpt_rules_push *pu = &rl->push;
	size_t len = 0;
	unsigned n;
	char err[320];

	for (unsigned i = 0; i < pu->asm_count; i++) {
		memmove(pu->asm_buf + len, pu->asm_buf + (size_t)i * MPT_RULES_FRAG_MAX,
			pu->asm_len[i]);
		len += pu->asm_len[i];
	}
	pu->seq = pu->asm_seq;
	if (!rules) {
		log_warnx("%s: the anchor's rules (set %u): out of memory", s->name, pu->seq);
	} else if (mpt_rule_parse_set(pu->asm_buf, len, rules, MPT_MAX_RULES, &n, err,
				      sizeof(err)) < 0) {
		log_warnx("%s: the anchor's rules (set %u) refused, keeping %u: %s", s->name,
			  pu->seq, rl->pushed.n, err);
	} else if (mpt_ruleset_replace(&rl->pushed, rules, n) < 0) {
		log_warnx("%s: the anchor's rules (set %u): out of memory", s->name, pu->seq);
	} else {
		log_info("%s: %u rule(s) from the anchor (set %u)", s->name, n, pu->seq);
	}
	free(rules);
	free(pu->asm_buf);
	pu->asm_buf = NULL;
	pu->asm_have = 0;
}

void mpt_rules_on_frame(struct mpt_session *s, struct mpt_path *p,
			const struct mpt_rules_frag *f, uint64_t now)
{
	bool anchor = s->d->cfg.role == MPT_ROLE_ANCHOR;
	struct mpt_srules *rl;
	struct mpt_rules_push *pu;

	if (anchor != !f->count)
		return;			/* sets go to the UE, acknowledgments back */
	rl = mpt_rules_get(s);
	if (!rl)
		return;
	pu = &rl->push;
	if (anchor) {
		if (f->seq == push_seq(s->d))
			pu->acked = f->seq;
		return;
	}
	if (f->seq == pu->seq) {	/* held already: our acknowledgment was lost */
		send_ack(s, p, f->seq, now);
		return;
	}
	if (f->seq != pu->asm_seq || f->count != pu->asm_count || !pu->asm_buf) {
		free(pu->asm_buf);
		pu->asm_buf = malloc((size_t)MPT_RULES_FRAGS * MPT_RULES_FRAG_MAX);
		if (!pu->asm_buf)
			return;
		pu->asm_seq = f->seq;
		pu->asm_count = f->count;
		pu->asm_have = 0;
	}
	memcpy(pu->asm_buf + (size_t)f->index * MPT_RULES_FRAG_MAX, f->text, f->len);
	pu->asm_len[f->index] = f->len;
	pu->asm_have |= (uint16_t)(1u << f->index);
	if (pu->asm_have != (uint16_t)((1u << f->count) - 1))
		return;
	install(s, rl);
	send_ack(s, p, pu->seq, now);
}
