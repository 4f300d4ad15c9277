/* SPDX-License-Identifier: MIT */
/*
 * The two linear programs of OLMS (Cai et al., sections IV-A and IV-B), solved
 * exactly for K <= MPT_MAX_PATHS paths without a general LP library:
 *
 *   maxrtt, eq. (4):  maximise v.b  s.t.  r_i v_i <= C_r, 0 <= v_i <= 1, sum v = L
 *   bwcap,  eq. (8):  minimise max_i v_i r_i  s.t.  v.b <= C_b, 0 <= v_i <= 1, sum v = L
 *
 * Inputs are the normalised estimates (b_i, r_i >= 0). Both return 0 and fill v[] and
 * *opt with the optimum, or -ERANGE when the program is infeasible (OLMS then falls
 * back to minRTT, section III-B). Used by sched/olms.c and by tests/unit/test_olms_lp.c.
 */
#ifndef MPTUND_OLMS_LP_H
#define MPTUND_OLMS_LP_H

int mpt_olms_lp_maxrtt(unsigned k, const double *b, const double *r, double c_r,
		       double l, double *v, double *opt);
int mpt_olms_lp_bwcap(unsigned k, const double *b, const double *r, double c_b,
		      double l, double *v, double *opt);

#endif
