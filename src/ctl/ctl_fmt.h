/* SPDX-License-Identifier: MIT */
/*
 * mptund-ctl output backends, bgpctl style: one interface, three implementations that
 * all work on the flat key=value list of a reply (ctl_kv.h), never on daemon structs.
 *   text - aligned "key  value" columns for people; watch: one line per sample
 *   json - keys split at '.' into nested objects (dense indices become arrays),
 *          numbers as numbers; watch: one JSON object per line (JSON lines)
 *   prom - Prometheus text exposition format (HELP/TYPE from include/mptund/ctl.h)
 * The tabular text views of status/paths/sessions use ctl_table below.
 */
#ifndef MPTUND_CTL_FMT_H
#define MPTUND_CTL_FMT_H

#include <stdio.h>

#include "ctl_kv.h"

struct ctl_backend {
	const char *name;
	/* a whole reply */
	int (*dump)(FILE *f, const struct ctl_kvl *kv);
	/* one watch record taken at time_ms (Unix ms); NULL: not supported */
	int (*sample)(FILE *f, const struct ctl_kvl *kv, double time_ms);
};

extern const struct ctl_backend ctl_backend_text;
extern const struct ctl_backend ctl_backend_json;
extern const struct ctl_backend ctl_backend_prom;

/* A text table: add rows of cells, then print with aligned columns. */
#define CTL_TABLE_MAX_COLS 12

struct ctl_table {
	unsigned ncols;
	size_t nrows, cap;
	char **cells;			/* nrows x ncols, strdup'ed */
};

void ctl_table_init(struct ctl_table *t, unsigned ncols);
/* Add a row of ncols strings (NULL prints "-"). */
int ctl_table_row(struct ctl_table *t, const char *const *cells);
/* Print with indent spaces before each row, two spaces between columns. */
void ctl_table_print(const struct ctl_table *t, FILE *f, unsigned indent);
void ctl_table_free(struct ctl_table *t);

/* Human units: "42.1 ms" from microseconds, "1.5 MB" from bytes, "12.3 Mbit/s" from
 * bytes/s, "1h02m03s" from ms. NULL/non-numeric input gives "-". */
const char *ctl_human_us(const char *us, char *buf, size_t len);
const char *ctl_human_bytes(const char *b, char *buf, size_t len);
const char *ctl_human_rate(const char *bps, char *buf, size_t len);
const char *ctl_human_ms(const char *ms, char *buf, size_t len);

#endif
