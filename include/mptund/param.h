/* SPDX-License-Identifier: MIT */
/*
 * Declared tunables and statistics of an algorithm module.
 *
 * A scheduler or congestion controller keeps its tunables in its private blob and
 * describes them in a const table: name, type, range, default, one line of help that
 * cites the source. The config parser, the control socket (mptund-ctl sched / set) and
 * the man page all read this one table. Statistics the module exports (ACPF's cw_frac,
 * OLMS posteriors, ...) are declared the same way, as offsets into the blob.
 */
#ifndef MPTUND_PARAM_H
#define MPTUND_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mpt_param_type {
	MPT_PARAM_DOUBLE,	/* double */
	MPT_PARAM_U32,		/* uint32_t, integral values only */
	MPT_PARAM_BOOL,		/* bool: 0/1, true/false, yes/no, on/off */
	MPT_PARAM_ENUM,		/* uint32_t index into .enum_names */
	MPT_PARAM_NAME,		/* char[MPT_PARAM_NAME_LEN]: a path name, [A-Za-z0-9_.-];
				 * default "" (unset); min, max, def unused */
};

#define MPT_PARAM_NAME_LEN 16	/* = MPT_NAME_LEN, NUL included */

struct mpt_param {
	const char *name;		/* lower case, [a-z0-9_] */
	enum mpt_param_type type;
	size_t offset;			/* offsetof() into the module's private blob */
	double min, max, def;		/* inclusive range and default (ENUM: index) */
	const char *const *enum_names;	/* ENUM only: NULL-terminated */
	const char *help;		/* one line; cites paper section/figure */
};

enum mpt_stat_type {
	MPT_STAT_DOUBLE,
	MPT_STAT_U64,
	MPT_STAT_U32,
	MPT_STAT_I32,
};

enum mpt_stat_kind {
	MPT_STAT_GAUGE,
	MPT_STAT_COUNTER,
};

struct mpt_stat {
	const char *name;
	enum mpt_stat_type type;
	enum mpt_stat_kind kind;
	bool per_path;			/* offset names an array [MPT_MAX_PATHS] of type */
	size_t offset;			/* offsetof() into the module's private blob */
	const char *help;
};

/* Write every parameter's default into blob. */
void mpt_param_defaults(const struct mpt_param *tab, size_t n, void *blob);

const struct mpt_param *mpt_param_find(const struct mpt_param *tab, size_t n,
				       const char *name);

/*
 * Parse text for parameter p and store it in blob. Returns 0, or -EINVAL / -ERANGE
 * with a message in err that quotes the value, e.g.
 *   "min_frac: '1.5' is out of range [0.01, 1]".
 */
int mpt_param_parse(const struct mpt_param *p, void *blob, const char *text,
		    char *err, size_t errlen);

/* Current value as a double (ENUM/BOOL/U32 converted; NAME: 0). */
double mpt_param_get(const struct mpt_param *p, const void *blob);

/* Format the current value as text ("0.47", "true", "kernel"). Returns snprintf's. */
int mpt_param_format(const struct mpt_param *p, const void *blob, char *buf, size_t len);

/* Format an arbitrary value of p's type (used for defaults and ranges). */
int mpt_param_format_value(const struct mpt_param *p, double v, char *buf, size_t len);

/* Read a declared statistic; path is ignored unless s->per_path. */
double mpt_stat_read(const struct mpt_stat *s, const void *blob, unsigned path);

#endif
