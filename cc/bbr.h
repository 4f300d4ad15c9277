/* SPDX-License-Identifier: MIT */
/*
 * bbr's state and entry points, shared by cc/bbr.c (the algorithm: its comment is the
 * model) and cc/bbr_params.c (its tunables, statistics and ops table).
 */
#ifndef MPTUND_CC_BBR_H
#define MPTUND_CC_BBR_H

#include <stdbool.h>
#include <stdint.h>

#include <mptund/cc.h>

#include "filter.h"

#define BBR_MAX_CYCLE 16

struct bbr {
	/* tunables */
	double high_gain;
	double drain_gain;
	double cwnd_gain;
	double up_gain;
	double down_gain;
	double full_bw_thresh;
	double pacing_margin;
	uint32_t cycle_len;
	uint32_t bw_rtts;
	uint32_t min_rtt_win_ms;
	uint32_t probe_rtt_ms;
	uint32_t min_cwnd_pkts;
	uint32_t full_bw_cnt;
	uint32_t init_cwnd_pkts;
	uint32_t iw_ref_rtt_ms;
	uint32_t iw_max_pkts;
	uint32_t send_quanta;
	uint32_t quantum_us;
	uint32_t quantum_max;
	uint32_t quantum_1pkt_kbps;
	uint32_t quantum_2pkt_kbps;
	uint32_t default_rtt_us;
	uint32_t startup_full_loss_cnt;
	double loss_thresh;
	double probe_rtt_cwnd_gain;
	double probe_rtt_skip_similar;
	uint32_t rtprop_jump_rounds;
	uint32_t rtprop_jump_ms;
	double startup_flight_gain;
	bool loss_recovery;

	/* state */
	struct mpt_rng rng;		/* private, seeded from init's rng */
	struct mpt_minmax bw;		/* max filter, time = round count */
	uint64_t min_rtt_ns, min_rtt_stamp;
	uint64_t last_rtt_ns;		/* the latest RTT sample */
	uint64_t probe_rtt_skips;	/* stat: due ProbeRTTs skipped (similar RTT) */
	uint64_t startup_follows;	/* stat: ACKs on which the flight raised cwnd */
	uint64_t round_count;		/* stat */
	uint64_t next_rtt_delivered;
	uint64_t cycle_stamp;
	uint64_t probe_rtt_done_stamp;
	uint64_t probe_rtt_count;	/* stat: ProbeRTT entries */
	uint64_t probe_rtt_app_mark;	/* latest ProbeRTT app-limited mark, 0 none */
	uint64_t full_bw;
	uint64_t prior_cwnd;
	uint64_t recovery_losses;	/* bytes lost in the current round */
	uint64_t round_lost;		/* bytes lost since the round started */
	uint64_t round_delivered;	/* path delivered when the round started */
	uint32_t round_loss_events;	/* ACKs that declared losses this round */
	uint64_t startup_loss_exits;	/* stat: Startup left on high loss */
	uint64_t probe_rtt_deferred;	/* stat: ProbeRTT starts put off for another path */
	uint64_t rtprop_jumps;		/* stat: RTprop expired early, the path lengthened */
	uint32_t jump_rounds;		/* rounds in a row of RTT samples RTprop misses */
	uint64_t jump_since_ns;		/* when the first of them began */
	uint64_t jump_round_began_ns;	/* when this round began */
	bool jump_round_fit;		/* this round: a sample RTprop explains */
	bool jump_round_sampled;	/* this round: an RTT sample was judged */
	bool jump_round_limited;	/* this round: the window or Drain held the path */
	bool rtprop_stale;		/* RTprop expires on the next ACK */
	double pacing_gain;		/* stat */
	double cur_cwnd_gain;
	uint32_t mode;			/* stat: enum mpt_cc_state */
	uint32_t cycle_idx;		/* stat */
	uint32_t full_bw_rounds;
	uint32_t full_bw_reached;	/* stat (0/1) */
	uint32_t mss;
	bool round_start;
	bool probe_rtt_round_done;
	bool in_recovery;
	bool packet_conservation;
	bool has_seen_rtt;
	bool bw_proven;			/* a sample that was not app-limited was taken */
	uint64_t capacity;		/* configured path capacity, bytes/s; 0 none */
};
_Static_assert(sizeof(struct bbr) <= MPT_CC_PRIV_SIZE, "bbr state too large");

void mpt_bbr_init(struct mpt_cc *cc, const struct mpt_cc_path *p, struct mpt_rng *rng,
		  uint64_t now);
void mpt_bbr_on_ack(struct mpt_cc *cc, const struct mpt_cc_path *p,
		    const struct mpt_rate_sample *rs, uint64_t now);
void mpt_bbr_on_loss(struct mpt_cc *cc, const struct mpt_cc_path *p,
		     uint64_t lost_bytes, uint64_t now);
void mpt_bbr_on_path_reset(struct mpt_cc *cc, const struct mpt_cc_path *p, uint64_t now);
void mpt_bbr_params_changed(struct mpt_cc *cc);

#endif
