// SPDX-License-Identifier: MIT
/* Declared tunables and statistics: parse, format, read (see include/mptund/param.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mptund/param.h>

static void *field(void *blob, size_t off)
{
	return (unsigned char *)blob + off;
}

static const void *cfield(const void *blob, size_t off)
{
	return (const unsigned char *)blob + off;
}

static void store(const struct mpt_param *p, void *blob, double v)
{
	switch (p->type) {
	case MPT_PARAM_DOUBLE:
		*(double *)field(blob, p->offset) = v;
		break;
	case MPT_PARAM_U32:
	case MPT_PARAM_ENUM:
		*(uint32_t *)field(blob, p->offset) = (uint32_t)v;
		break;
	case MPT_PARAM_BOOL:
		*(bool *)field(blob, p->offset) = v != 0;
		break;
	case MPT_PARAM_NAME:
		memset(field(blob, p->offset), 0, MPT_PARAM_NAME_LEN);	/* unset */
		break;
	}
}

static int parse_name(const struct mpt_param *p, void *blob, const char *text,
		      char *err, size_t errlen)
{
	size_t n = strlen(text);

	if (n >= MPT_PARAM_NAME_LEN) {
		snprintf(err, errlen, "%s: '%s' is longer than %d characters", p->name, text,
			 MPT_PARAM_NAME_LEN - 1);
		return -EINVAL;
	}
	if (strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_.-") != n) {
		snprintf(err, errlen, "%s: '%s' is not a path name ([A-Za-z0-9_.-])",
			 p->name, text);
		return -EINVAL;
	}
	memset(field(blob, p->offset), 0, MPT_PARAM_NAME_LEN);
	memcpy(field(blob, p->offset), text, n);
	return 0;
}

void mpt_param_defaults(const struct mpt_param *tab, size_t n, void *blob)
{
	for (size_t i = 0; i < n; i++)
		store(&tab[i], blob, tab[i].def);
}

const struct mpt_param *mpt_param_find(const struct mpt_param *tab, size_t n,
				       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(tab[i].name, name) == 0)
			return &tab[i];
	return NULL;
}

double mpt_param_get(const struct mpt_param *p, const void *blob)
{
	switch (p->type) {
	case MPT_PARAM_DOUBLE:
		return *(const double *)cfield(blob, p->offset);
	case MPT_PARAM_U32:
	case MPT_PARAM_ENUM:
		return *(const uint32_t *)cfield(blob, p->offset);
	case MPT_PARAM_BOOL:
		return *(const bool *)cfield(blob, p->offset);
	case MPT_PARAM_NAME:
		return 0;
	}
	return 0;
}

static int parse_bool(const char *t, double *v)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(t, yes[i]) == 0) {
			*v = 1;
			return 0;
		}
		if (strcasecmp(t, no[i]) == 0) {
			*v = 0;
			return 0;
		}
	}
	return -EINVAL;
}

int mpt_param_parse(const struct mpt_param *p, void *blob, const char *text,
		    char *err, size_t errlen)
{
	char rmin[32], rmax[32];
	double v = 0;
	char *end;

	switch (p->type) {
	case MPT_PARAM_NAME:
		return parse_name(p, blob, text, err, errlen);
	case MPT_PARAM_BOOL:
		if (parse_bool(text, &v) < 0) {
			snprintf(err, errlen, "%s: '%s' is not a boolean (true/false)",
				 p->name, text);
			return -EINVAL;
		}
		store(p, blob, v);
		return 0;
	case MPT_PARAM_ENUM:
		for (uint32_t i = 0; p->enum_names && p->enum_names[i]; i++) {
			if (strcasecmp(text, p->enum_names[i]) == 0) {
				store(p, blob, i);
				return 0;
			}
		}
		snprintf(err, errlen, "%s: '%s' is not one of the allowed values", p->name,
			 text);
		return -EINVAL;
	case MPT_PARAM_DOUBLE:
	case MPT_PARAM_U32:
		errno = 0;
		v = strtod(text, &end);
		if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) {
			snprintf(err, errlen, "%s: '%s' is not a number", p->name, text);
			return -EINVAL;
		}
		if (p->type == MPT_PARAM_U32 && v != floor(v)) {
			snprintf(err, errlen, "%s: '%s' is not a whole number", p->name, text);
			return -EINVAL;
		}
		if (v < p->min || v > p->max) {
			mpt_param_format_value(p, p->min, rmin, sizeof(rmin));
			mpt_param_format_value(p, p->max, rmax, sizeof(rmax));
			snprintf(err, errlen, "%s: '%s' is out of range [%s, %s]", p->name,
				 text, rmin, rmax);
			return -ERANGE;
		}
		store(p, blob, v);
		return 0;
	}
	return -EINVAL;
}

int mpt_param_format_value(const struct mpt_param *p, double v, char *buf, size_t len)
{
	switch (p->type) {
	case MPT_PARAM_DOUBLE:
		return snprintf(buf, len, "%.10g", v);
	case MPT_PARAM_U32:
		return snprintf(buf, len, "%.0f", v);
	case MPT_PARAM_BOOL:
		return snprintf(buf, len, "%s", v != 0 ? "true" : "false");
	case MPT_PARAM_ENUM: {
		uint32_t i = 0, idx = (uint32_t)v;

		while (p->enum_names && p->enum_names[i] && i < idx)
			i++;
		if (p->enum_names && p->enum_names[i])
			return snprintf(buf, len, "%s", p->enum_names[i]);
		return snprintf(buf, len, "%u", idx);
	}
	case MPT_PARAM_NAME:
		return snprintf(buf, len, "%s", "");	/* the default: unset */
	}
	return snprintf(buf, len, "?");
}

int mpt_param_format(const struct mpt_param *p, const void *blob, char *buf, size_t len)
{
	if (p->type == MPT_PARAM_NAME)
		return snprintf(buf, len, "%.*s", MPT_PARAM_NAME_LEN - 1,
				(const char *)cfield(blob, p->offset));
	return mpt_param_format_value(p, mpt_param_get(p, blob), buf, len);
}

double mpt_stat_read(const struct mpt_stat *s, const void *blob, unsigned path)
{
	size_t sz = s->type == MPT_STAT_DOUBLE || s->type == MPT_STAT_U64 ? 8 : 4;
	const void *f = cfield(blob, s->offset + (s->per_path ? sz * path : 0));

	switch (s->type) {
	case MPT_STAT_DOUBLE:
		return *(const double *)f;
	case MPT_STAT_U64:
		return (double)*(const uint64_t *)f;
	case MPT_STAT_U32:
		return *(const uint32_t *)f;
	case MPT_STAT_I32:
		return *(const int32_t *)f;
	}
	return 0;
}
