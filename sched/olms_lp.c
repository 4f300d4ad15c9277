// SPDX-License-Identifier: MIT
/*
 * Exact solvers for the two OLMS linear programs (see olms_lp.h), K <= 8.
 *
 * maxrtt (eq. 4) is a bounded fractional knapsack with unit weights: the RTT
 * constraint r_i v_i <= C_r only caps each variable, u_i = min(1, C_r / r_i), so the
 * optimum fills sum v = L greedily by decreasing b_i. Infeasible when sum u_i < L.
 *
 * bwcap (eq. 8) is parametric in the objective value t = max_i v_i r_i: for a given t
 * the variables are capped by u_i(t) = min(1, t / r_i), and the cheapest bandwidth a
 * vector with sum v = L can have is F(t), the greedy fill by increasing b_i. S(t) =
 * sum u_i(t) and F(t) are continuous piecewise-linear, S non-decreasing, F
 * non-increasing, and both change slope only where t = r_i or where a prefix (in b
 * order) of the caps sums to exactly L. The optimum is the smallest t with S(t) >= L
 * and F(t) <= C_b: we find t0 (S(t0) = L) in closed form on the r_i breakpoints, and
 * if F(t0) > C_b we walk the breakpoints above t0 to the piece where F crosses C_b
 * and solve that linear piece exactly. Infeasible when even t = max r_i (all caps 1)
 * leaves F > C_b, i.e. the L smallest b_i already exceed C_b.
 */
#include <errno.h>
#include <math.h>

#include <mptund/common.h>

#include "olms_lp.h"

#define LP_EPS 1e-12

/* Indices 0..k-1 sorted by key, ascending (insertion sort: k <= 8). */
static void sort_idx(unsigned k, const double *key, unsigned *idx)
{
	for (unsigned i = 0; i < k; i++) {
		unsigned j = i;

		while (j > 0 && key[idx[j - 1]] > key[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
}

int mpt_olms_lp_maxrtt(unsigned k, const double *b, const double *r, double c_r,
		       double l, double *v, double *opt)
{
	double u[MPT_MAX_PATHS], nb[MPT_MAX_PATHS], sum = 0, rem = l, val = 0;
	unsigned idx[MPT_MAX_PATHS];

	if (k == 0 || k > MPT_MAX_PATHS || l <= 0 || l > k)
		return -EINVAL;
	for (unsigned i = 0; i < k; i++) {
		u[i] = r[i] <= c_r ? 1.0 : c_r / r[i];
		if (u[i] < 0)
			u[i] = 0;
		sum += u[i];
		nb[i] = -b[i];
		v[i] = 0;
	}
	if (sum < l - LP_EPS)
		return -ERANGE;
	sort_idx(k, nb, idx);
	for (unsigned j = 0; j < k && rem > 0; j++) {
		unsigned i = idx[j];
		double x = u[i] < rem ? u[i] : rem;

		v[i] = x;
		val += b[i] * x;
		rem -= x;
	}
	*opt = val;
	return 0;
}

static double cap_at(double r, double t)
{
	return r <= t ? 1.0 : t / r;
}

/* F(t): cheapest v.b with 0 <= v <= u(t), sum v = L (greedy by increasing b);
 * INFINITY when sum u(t) < L. Fills v when non-NULL. */
static double fill_cheapest(unsigned k, const double *b, const double *r,
			    const unsigned *ob, double l, double t, double *v)
{
	double rem = l, cost = 0;

	for (unsigned j = 0; j < k; j++) {
		unsigned i = ob[j];
		double x = cap_at(r[i], t);

		if (x > rem)
			x = rem;
		if (x < 0)
			x = 0;
		if (v)
			v[i] = x;
		cost += b[i] * x;
		rem -= x;
	}
	return rem > 1e-9 ? INFINITY : cost;
}

/* Smallest t >= 0 with S(t) >= L, or -1 when L > sum of all caps (L > k). */
static double first_t_with_room(unsigned k, const double *r, const unsigned *or_,
				double l)
{
	double lo = 0, n1 = 0, inv = 0;
	unsigned j = 0;

	for (unsigned i = 0; i < k; i++)
		if (r[i] > 0)
			inv += 1.0 / r[i];
	while (j < k && r[or_[j]] <= 0) {
		n1 += 1;
		j++;
	}
	if (n1 >= l - LP_EPS)
		return 0;
	for (; j < k; j++) {
		double hi = r[or_[j]];

		/* on (lo, hi]: S(t) = n1 + t * inv */
		if (n1 + hi * inv >= l - LP_EPS) {
			double t = (l - n1) / inv;

			return t < lo ? lo : (t > hi ? hi : t);
		}
		n1 += 1;
		inv -= 1.0 / hi;
		lo = hi;
	}
	return -1;
}

/*
 * On [p, q] the greedy structure of F is fixed; write F(t) = alpha + beta t using the
 * structure at the midpoint, then solve F(t) = C_b.
 */
static double solve_piece(unsigned k, const double *b, const double *r,
			  const unsigned *ob, double l, double c_b, double p, double q)
{
	double m = 0.5 * (p + q), alpha = 0, beta = 0, pa = 0, pb = 0, t;

	for (unsigned j = 0; j < k; j++) {
		unsigned i = ob[j];
		bool full_cap = r[i] <= m;
		double ca = full_cap ? 1.0 : 0.0, cb = full_cap ? 0.0 : 1.0 / r[i];

		if (pa + ca + (pb + cb) * m <= l) {
			alpha += b[i] * ca;
			beta += b[i] * cb;
			pa += ca;
			pb += cb;
		} else {
			alpha += b[i] * (l - pa);
			beta -= b[i] * pb;
			break;
		}
	}
	if (beta >= 0)
		return q;
	t = (c_b - alpha) / beta;
	return t < p ? p : (t > q ? q : t);
}

int mpt_olms_lp_bwcap(unsigned k, const double *b, const double *r, double c_b,
		      double l, double *v, double *opt)
{
	unsigned ob[MPT_MAX_PATHS], or_[MPT_MAX_PATHS];
	double t0, tmax, t, lo, pts[2 * MPT_MAX_PATHS + 2], best = 0;
	unsigned np = 0;

	if (k == 0 || k > MPT_MAX_PATHS || l <= 0 || l > k)
		return -EINVAL;
	sort_idx(k, b, ob);
	sort_idx(k, r, or_);
	t0 = first_t_with_room(k, r, or_, l);
	if (t0 < 0)
		return -ERANGE;
	tmax = r[or_[k - 1]] > t0 ? r[or_[k - 1]] : t0;
	if (fill_cheapest(k, b, r, ob, l, t0, NULL) <= c_b + LP_EPS) {
		t = t0;
		goto done;
	}
	if (!(fill_cheapest(k, b, r, ob, l, tmax, NULL) <= c_b + LP_EPS))
		return -ERANGE;

	/* breakpoints above t0: the r_i, and where a b-ordered prefix of caps hits L */
	pts[np++] = t0;
	for (unsigned i = 0; i < k; i++)
		if (r[i] > t0 && r[i] < tmax)
			pts[np++] = r[i];
	pts[np++] = tmax;
	for (unsigned i = 1; i < np; i++) {
		double x = pts[i];
		unsigned j = i;

		while (j > 0 && pts[j - 1] > x) {
			pts[j] = pts[j - 1];
			j--;
		}
		pts[j] = x;
	}
	lo = t0;
	for (unsigned s = 1; s < np; s++) {
		double hi = pts[s], cross[MPT_MAX_PATHS + 1], pa = 0, pb = 0;
		unsigned nc = 0;

		if (hi <= lo)
			continue;
		if (!(fill_cheapest(k, b, r, ob, l, hi, NULL) <= c_b + LP_EPS)) {
			lo = hi;
			continue;
		}
		/* F crosses C_b in (lo, hi]: split at the prefix crossings */
		for (unsigned j = 0; j < k; j++) {
			unsigned i = ob[j];

			if (r[i] <= lo)
				pa += 1;
			else
				pb += 1.0 / r[i];
			if (pb > 0) {
				double x = (l - pa) / pb;

				if (x > lo && x < hi)
					cross[nc++] = x;
			}
		}
		cross[nc++] = hi;
		for (unsigned i = 1; i < nc; i++) {
			double x = cross[i];
			unsigned j = i;

			while (j > 0 && cross[j - 1] > x) {
				cross[j] = cross[j - 1];
				j--;
			}
			cross[j] = x;
		}
		for (unsigned c = 0; c < nc; c++) {
			double q = cross[c];

			if (q <= lo)
				continue;
			if (fill_cheapest(k, b, r, ob, l, q, NULL) <= c_b + LP_EPS) {
				t = solve_piece(k, b, r, ob, l, c_b, lo, q);
				goto done;
			}
			lo = q;
		}
		t = hi;
		goto done;
	}
	t = tmax;
done:
	fill_cheapest(k, b, r, ob, l, t, v);
	for (unsigned i = 0; i < k; i++)
		if (v[i] * r[i] > best)
			best = v[i] * r[i];
	*opt = best;
	return 0;
}
