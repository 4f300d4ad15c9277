// SPDX-License-Identifier: MIT
/*
 * bbr's tunables (each a cited constant of the draft or tcp_bbr.c, or marked ours),
 * its statistics and its ops table; the algorithm is cc/bbr.c.
 */
#include <stddef.h>

#include <mptund/cc.h>

#include "bbr.h"
#include "cc_modules.h"

#define P_D(n, f, lo, hi, d, h) { .name = n, .type = MPT_PARAM_DOUBLE, \
	.offset = offsetof(struct bbr, f), .min = lo, .max = hi, .def = d, .help = h }
#define P_U(n, f, lo, hi, d, h) { .name = n, .type = MPT_PARAM_U32, \
	.offset = offsetof(struct bbr, f), .min = lo, .max = hi, .def = d, .help = h }

static const struct mpt_param bbr_params[] = {
	P_D("high_gain", high_gain, 1, 10, 2.885,
	    "Startup pacing and cwnd gain 2/ln2 (draft 4.3.2.1; tcp_bbr.c bbr_high_gain)"),
	P_D("drain_gain", drain_gain, 0.05, 1, 0.3466,
	    "Drain pacing gain ln2/2 (draft 4.3.3; tcp_bbr.c bbr_drain_gain)"),
	P_D("cwnd_gain", cwnd_gain, 1, 10, 2,
	    "ProbeBW cwnd gain (draft 4.2.3.2; tcp_bbr.c bbr_cwnd_gain)"),
	P_D("up_gain", up_gain, 1, 4, 1.25,
	    "ProbeBW probing phase pacing gain 5/4 (draft 4.3.4.3; bbr_pacing_gain[0])"),
	P_D("down_gain", down_gain, 0.1, 1, 0.75,
	    "ProbeBW draining phase pacing gain 3/4 (draft 4.3.4.3; bbr_pacing_gain[1])"),
	P_D("full_bw_thresh", full_bw_thresh, 1, 4, 1.25,
	    "BtlBw growth that counts as growth, 25% (draft 4.3.2.2; bbr_full_bw_thresh)"),
	P_D("pacing_margin", pacing_margin, 0, 0.5, 0.01,
	    "pace this fraction below BtlBw, 1% (tcp_bbr.c bbr_pacing_margin_percent)"),
	P_U("cycle_len", cycle_len, 3, BBR_MAX_CYCLE, 8,
	    "ProbeBW gain cycle phases (draft 4.3.4.3; tcp_bbr.c CYCLE_LEN)"),
	P_U("bw_rtts", bw_rtts, 2, 100, 10,
	    "BtlBw max filter window, round trips (draft 4.1.1.5 BtlBwFilterLen; bbr_bw_rtts)"),
	P_U("min_rtt_win_ms", min_rtt_win_ms, 1000, 60000, 10000,
	    "RTprop filter window, ms (draft 4.1.2.3 RTpropFilterLen; bbr_min_rtt_win_sec)"),
	P_U("probe_rtt_ms", probe_rtt_ms, 0, 1000, 200,
	    "ProbeRTT duration at min cwnd, ms; 0 disables (draft 4.3.5; bbr_probe_rtt_mode_ms)"),
	P_U("min_cwnd_pkts", min_cwnd_pkts, 1, 64, 4,
	    "minimum cwnd and ProbeRTT cwnd, packets (draft 4.2.3.1; bbr_cwnd_min_target)"),
	P_U("full_bw_cnt", full_bw_cnt, 1, 16, 3,
	    "rounds without growth that mean a full pipe (draft 4.3.2.2; bbr_full_bw_cnt)"),
	P_U("init_cwnd_pkts", init_cwnd_pkts, 2, 1000, 10,
	    "initial cwnd, packets (draft 4.2.3.1 InitialCwnd; RFC 6928 IW10), per "
	    "iw_ref_rtt_ms of RTT; see the trade-off below"),
	P_U("iw_ref_rtt_ms", iw_ref_rtt_ms, 0, 10000, 25,
	    "initial cwnd is init_cwnd_pkts per this much RTT, ms; 0: init_cwnd_pkts at "
	    "any RTT (draft 4.2.3.1 InitialCwnd x RTT / RTT0; TCP Hybla's RTT0, 25 ms: "
	    "Caini, Firrincieli 2004, section 3)"),
	P_U("iw_max_pkts", iw_max_pkts, 2, 100000, 400,
	    "the RTT-scaled initial cwnd at most, packets (ours; bounds draft 4.2.3.1 "
	    "InitialCwnd x RTT / RTT0)"),
	P_U("send_quanta", send_quanta, 0, 64, 3,
	    "cwnd allowance for send bursts, in send quanta (draft 4.2.3.2 BBRInflight; "
	    "tcp_bbr.c bbr_quantization_budget)"),
	P_U("quantum_us", quantum_us, 1, 100000, 1000,
	    "send quantum at high rates = pacing rate x this, us (draft 4.2.2 "
	    "BBRSetSendQuantum: 1 ms; tcp_bbr.c sk_pacing_shift)"),
	P_U("quantum_max", quantum_max, 1200, 1u << 20, 65536,
	    "largest send quantum, bytes (draft 4.2.2 BBRSetSendQuantum: 64 KBytes)"),
	P_U("quantum_1pkt_kbps", quantum_1pkt_kbps, 0, 100000000, 1200,
	    "below this pacing rate the send quantum is 1 packet, kbit/s (draft 4.2.2: "
	    "1.2 Mbps; tcp_bbr.c bbr_min_tso_rate)"),
	P_U("quantum_2pkt_kbps", quantum_2pkt_kbps, 0, 100000000, 24000,
	    "below this pacing rate the send quantum is 2 packets, kbit/s (draft 4.2.2: "
	    "24 Mbps)"),
	P_U("default_rtt_us", default_rtt_us, 1, 10000000, 1000,
	    "RTT for the initial pacing rate before a sample, us "
	    "(tcp_bbr.c bbr_init_pacing_rate_from_rtt)"),
	P_U("startup_full_loss_cnt", startup_full_loss_cnt, 0, 1000, 6,
	    "loss events in a round that end Startup with loss_thresh; 0 disables "
	    "(draft-ietf-ccwg-bbr 4.3.1.3 BBRStartupFullLossCnt)"),
	P_D("loss_thresh", loss_thresh, 0, 1, 0.02,
	    "loss rate of a round that ends Startup, 2% "
	    "(draft-ietf-ccwg-bbr 4.3.1.3 BBRLossThresh)"),
	P_D("probe_rtt_cwnd_gain", probe_rtt_cwnd_gain, 0, 1, 0.5,
	    "ProbeRTT window in BDPs, at least min_cwnd_pkts; 0 is v1's min_cwnd_pkts "
	    "(draft-ietf-ccwg-bbr 4.3.4.3 BBRProbeRTTCwndGain)"),
	P_D("probe_rtt_skip_similar", probe_rtt_skip_similar, 0, 1, 0.125,
	    "skip a due ProbeRTT when the path is app-limited, its latest RTT at most this "
	    "fraction above RTprop; 0 disables (draft 4.3.5 ProbeRTT; QUIC BbrSender "
	    "probe_rtt_skipped_if_similar_rtt, kSimilarMinRttThreshold 1.125)"),
	P_U("rtprop_jump_rounds", rtprop_jump_rounds, 0, 1000, 3,
	    "rounds in a row of RTT samples above RTprop + inflight/BtlBw + the peer's max "
	    "ACK delay while the window limits after which RTprop expires early; 0 "
	    "disables (ours; draft 4.1.2.3, 4.3.5; RFC 9002 5.3)"),
	P_U("rtprop_jump_ms", rtprop_jump_ms, 0, 10000, 25,
	    "the least time those rounds must span, from the start of the first (ours, for "
	    "paths whose round is under a millisecond; bbr_check_rtprop_jump, draft 4.1.2.3)"),
	P_D("startup_flight_gain", startup_flight_gain, 0, 10, 2.885,
	    "Startup before a rate is proven, while under half the window is in flight: "
	    "cwnd >= this x the flight, pacing >= high_gain x cwnd / RTprop; 0 disables "
	    "(ours; draft 4.3.2.1 high_gain, tcp_bbr.c bbr_init_pacing_rate_from_rtt)"),
	{ .name = "loss_recovery", .type = MPT_PARAM_BOOL,
	  .offset = offsetof(struct bbr, loss_recovery), .min = 0, .max = 1, .def = 1,
	  .help = "packet conservation for a round after a loss (draft 4.2.3.4; "
		  "bbr_set_cwnd_to_recover_or_restore)" },
};

static const struct mpt_stat bbr_stats[] = {
	{ .name = "state", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct bbr, mode), .help = "enum mpt_cc_state of the mode" },
	{ .name = "round_count", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, round_count), .help = "round trips counted" },
	{ .name = "full_bw_reached", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct bbr, full_bw_reached),
	  .help = "1 once Startup found the pipe full" },
	{ .name = "pacing_gain", .type = MPT_STAT_DOUBLE, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct bbr, pacing_gain), .help = "current pacing gain" },
	{ .name = "cycle_idx", .type = MPT_STAT_U32, .kind = MPT_STAT_GAUGE,
	  .offset = offsetof(struct bbr, cycle_idx), .help = "ProbeBW gain cycle phase" },
	{ .name = "probe_rtt_count", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, probe_rtt_count), .help = "ProbeRTT entries" },
	{ .name = "probe_rtt_deferred", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, probe_rtt_deferred),
	  .help = "ACKs on which a due ProbeRTT waited for another path's to end" },
	{ .name = "rtprop_jumps", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, rtprop_jumps),
	  .help = "RTprop expiries brought forward: the path lengthened" },
	{ .name = "probe_rtt_skips", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, probe_rtt_skips),
	  .help = "due ProbeRTTs skipped: app-limited, RTT within probe_rtt_skip_similar" },
	{ .name = "startup_follows", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, startup_follows),
	  .help = "ACKs in unproven Startup on which the senders' flight raised cwnd" },
	{ .name = "startup_loss_exits", .type = MPT_STAT_U64, .kind = MPT_STAT_COUNTER,
	  .offset = offsetof(struct bbr, startup_loss_exits),
	  .help = "Startups ended by a high-loss round (BBRv3)" },
};

const struct mpt_cc_ops mpt_cc_bbr = {
	.name = "bbr",
	.summary = "BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00)",
	.on_ack = mpt_bbr_on_ack,
	.init = mpt_bbr_init,
	.on_loss = mpt_bbr_on_loss,
	.on_path_reset = mpt_bbr_on_path_reset,
	.params_changed = mpt_bbr_params_changed,
	.priv_size = sizeof(struct bbr),
	.params = bbr_params,
	.nparams = MPT_ARRAY_SIZE(bbr_params),
	.stats = bbr_stats,
	.nstats = MPT_ARRAY_SIZE(bbr_stats),
};
