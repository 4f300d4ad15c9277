// SPDX-License-Identifier: MIT
/* Reply buffer of the control socket (see ctl_out.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_out.h"

void mpt_ctl_out_init(struct mpt_ctl_out *out, size_t max)
{
	memset(out, 0, sizeof(*out));
	out->max = max;
}

void mpt_ctl_out_free(struct mpt_ctl_out *out)
{
	free(out->buf);
	mpt_ctl_out_init(out, out->max);
}

void mpt_ctl_out_reset(struct mpt_ctl_out *out)
{
	out->len = 0;
	out->err = 0;
	out->scope = NULL;
}

static int reserve(struct mpt_ctl_out *out, size_t extra)
{
	size_t cap;
	char *p;

	if (out->len + extra > out->max) {
		out->err = -ENOBUFS;
		return -ENOBUFS;
	}
	if (out->len + extra <= out->cap)
		return 0;
	cap = out->cap ? out->cap : 1024;
	while (cap < out->len + extra)
		cap *= 2;
	if (cap > out->max + 1)
		cap = out->max + 1;
	p = realloc(out->buf, cap);
	if (!p) {
		out->err = -ENOBUFS;
		return -ENOBUFS;
	}
	out->buf = p;
	out->cap = cap;
	return 0;
}

static int in_scope(const struct mpt_ctl_out *out, const char *line)
{
	size_t n;

	if (!out->scope || !out->scope[0])
		return 1;
	n = strlen(out->scope);
	return !strncmp(line, out->scope, n) && (line[n] == '.' || line[n] == '=');
}

int mpt_ctl_outf(struct mpt_ctl_out *out, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n;

	if (out->err)
		return out->err;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(out, (size_t)n + 2))
		return out->err ? out->err : -EINVAL;
	line = out->buf + out->len;
	va_start(ap, fmt);
	vsnprintf(line, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (!in_scope(out, line))
		return 0;
	for (int i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = '?';
	line[n] = '\n';
	out->len += (size_t)n + 1;
	return 0;
}

int mpt_ctl_out_append(struct mpt_ctl_out *out, const void *p, size_t n)
{
	if (out->err)
		return out->err;
	if (reserve(out, n))
		return out->err;
	memcpy(out->buf + out->len, p, n);
	out->len += n;
	return 0;
}

void mpt_ctl_out_consume(struct mpt_ctl_out *out, size_t n)
{
	if (n >= out->len) {
		out->len = 0;
		return;
	}
	memmove(out->buf, out->buf + n, out->len - n);
	out->len -= n;
}

static const char *const type_names[] = {
	[MPT_PARAM_DOUBLE] = "double", [MPT_PARAM_U32] = "u32",
	[MPT_PARAM_BOOL] = "bool", [MPT_PARAM_ENUM] = "enum", [MPT_PARAM_NAME] = "name",
};

int mpt_ctl_out_params(struct mpt_ctl_out *out, const char *prefix,
		       const struct mpt_param *tab, size_t n, const void *blob)
{
	char v[64], lo[64], hi[64], def[64];

	for (size_t i = 0; i < n; i++) {
		const struct mpt_param *p = &tab[i];

		mpt_param_format(p, blob, v, sizeof(v));
		mpt_param_format_value(p, p->min, lo, sizeof(lo));
		mpt_param_format_value(p, p->max, hi, sizeof(hi));
		mpt_param_format_value(p, p->def, def, sizeof(def));
		mpt_ctl_outf(out, "%s.%s.value=%s", prefix, p->name, v);
		mpt_ctl_outf(out, "%s.%s.type=%s", prefix, p->name, type_names[p->type]);
		mpt_ctl_outf(out, "%s.%s.min=%s", prefix, p->name, lo);
		mpt_ctl_outf(out, "%s.%s.max=%s", prefix, p->name, hi);
		mpt_ctl_outf(out, "%s.%s.default=%s", prefix, p->name, def);
		if (p->type == MPT_PARAM_ENUM && p->enum_names) {
			char list[256] = "";
			size_t l = 0;

			for (const char *const *e = p->enum_names; *e && l < sizeof(list); e++)
				l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s",
						      l ? "|" : "", *e);
			mpt_ctl_outf(out, "%s.%s.values=%s", prefix, p->name, list);
		}
		mpt_ctl_outf(out, "%s.%s.help=%s", prefix, p->name, p->help ? p->help : "");
	}
	return out->err;
}

int mpt_ctl_out_sched_stats(struct mpt_ctl_out *out, unsigned s,
			    const struct mpt_stat *stats, size_t n, const void *blob,
			    unsigned npaths)
{
	for (size_t i = 0; i < n; i++) {
		const struct mpt_stat *st = &stats[i];
		const char *sfx = st->kind == MPT_STAT_COUNTER ? "_total" : "";
		bool integral = st->type != MPT_STAT_DOUBLE;

		for (unsigned p = 0; p < (st->per_path ? npaths : 1); p++) {
			double v = mpt_stat_read(st, blob, p);
			char idx[16] = "";

			if (st->per_path)
				snprintf(idx, sizeof(idx), ".%u", p);
			if (integral)
				mpt_ctl_outf(out, "session.%u.sched_stat.%s%s%s=%.0f", s,
					     st->name, sfx, idx, v);
			else
				mpt_ctl_outf(out, "session.%u.sched_stat.%s%s%s=%.6g", s,
					     st->name, sfx, idx, v);
		}
	}
	return out->err;
}
