// SPDX-License-Identifier: MIT
/*
 * Text backend of mptund-ctl: aligned key/value listing, one-line watch samples, the
 * column table used by the status views, and human-readable units.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mptund/common.h>

#include "ctl_fmt.h"

static int text_dump(FILE *f, const struct ctl_kvl *kv)
{
	size_t w = 0;

	for (size_t i = 0; i < kv->n; i++)
		w = MPT_MAX(w, strlen(kv->v[i].key));
	for (size_t i = 0; i < kv->n; i++)
		fprintf(f, "%-*s  %s\n", (int)w, kv->v[i].key, kv->v[i].val);
	return ferror(f) ? -EIO : 0;
}

/* "HH:MM:SS.mmm key=value key=value ..." in local time. */
static int text_sample(FILE *f, const struct ctl_kvl *kv, double time_ms)
{
	time_t t = (time_t)(time_ms / 1000);
	struct tm tm;

	localtime_r(&t, &tm);
	fprintf(f, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		(int)((long long)time_ms % 1000));
	for (size_t i = 0; i < kv->n; i++)
		fprintf(f, " %s=%s", kv->v[i].key, kv->v[i].val);
	fputc('\n', f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

const struct ctl_backend ctl_backend_text = {
	.name = "text",
	.dump = text_dump,
	.sample = text_sample,
};

void ctl_table_init(struct ctl_table *t, unsigned ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

int ctl_table_row(struct ctl_table *t, const char *const *cells)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	for (unsigned i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = strdup(cells[i] ? cells[i] : "-");
	t->nrows++;
	return 0;
}

void ctl_table_print(const struct ctl_table *t, FILE *f, unsigned indent)
{
	size_t w[CTL_TABLE_MAX_COLS] = { 0 };

	for (size_t r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols && c < CTL_TABLE_MAX_COLS; c++) {
			const char *s = t->cells[r * t->ncols + c];

			w[c] = MPT_MAX(w[c], strlen(s ? s : ""));
		}
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(f, "%*s", (int)indent, "");
		for (unsigned c = 0; c < t->ncols && c < CTL_TABLE_MAX_COLS; c++) {
			const char *s = t->cells[r * t->ncols + c];

			if (c + 1 == t->ncols)
				fprintf(f, "%s", s ? s : "");
			else
				fprintf(f, "%-*s  ", (int)w[c], s ? s : "");
		}
		fputc('\n', f);
	}
}

void ctl_table_free(struct ctl_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static bool num(const char *s, double *v)
{
	char *e;

	if (!s || !*s)
		return false;
	*v = strtod(s, &e);
	return *e == '\0';
}

const char *ctl_human_us(const char *us, char *buf, size_t len)
{
	double v;

	if (!num(us, &v))
		snprintf(buf, len, "-");
	else if (v < 1000)
		snprintf(buf, len, "%.0f us", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1f ms", v / 1e3);
	else
		snprintf(buf, len, "%.2f s", v / 1e6);
	return buf;
}

static const char *scaled(double v, const char *const *units, double base,
			  char *buf, size_t len)
{
	unsigned u = 0;

	while (v >= base && units[u + 1]) {
		v /= base;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

const char *ctl_human_bytes(const char *b, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", NULL };
	double v;

	if (!num(b, &v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	return scaled(v, units, 1024, buf, len);
}

const char *ctl_human_rate(const char *bps, char *buf, size_t len)
{
	static const char *const units[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", NULL };
	double v;

	if (!num(bps, &v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	return scaled(v * 8, units, 1000, buf, len);
}

const char *ctl_human_ms(const char *ms, char *buf, size_t len)
{
	double v;
	unsigned long long s;

	if (!num(ms, &v) || v < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	s = (unsigned long long)(v / 1000);
	if (s >= 86400)
		snprintf(buf, len, "%llud%02lluh%02llum", s / 86400, s / 3600 % 24, s / 60 % 60);
	else if (s >= 3600)
		snprintf(buf, len, "%lluh%02llum%02llus", s / 3600, s / 60 % 60, s % 60);
	else if (s >= 60)
		snprintf(buf, len, "%llum%02llus", s / 60, s % 60);
	else
		snprintf(buf, len, "%.1fs", v / 1000);
	return buf;
}
