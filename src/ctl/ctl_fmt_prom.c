// SPDX-License-Identifier: MIT
/*
 * Prometheus backend of mptund-ctl (text exposition format 0.0.4).
 *
 * Key -> sample: numeric components that index an object become labels named after
 * the object (session="0" plus peer="..."; path="<its name>"); a trailing index (a
 * per-path scheduler statistic) becomes path="<name>". The family is mptund_, the
 * innermost object's name, then the remaining components joined by '_':
 *	session.0.path.1.srtt_us=42000  ->
 *	mptund_path_srtt_seconds{session="0",peer="ue1",path="cell"} 0.042
 * Units go to base units (_us/_ms/_ns -> _seconds, _bytes_per_s -> _bytes_per_second),
 * counters get _total. Text values (kind info) become labels of one
 * mptund_<object>_info gauge per object with the value 1. Families are sorted so each
 * has one HELP and one TYPE line before its samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mptund/ctl.h>

#include "ctl_fmt.h"

#define MAX_COMPS 16
#define LABELS_LEN 1024

struct sample {
	char family[160];
	enum mpt_ctl_kind kind;
	const char *help;
	char labels[LABELS_LEN];	/* without braces */
	size_t base_len;		/* info: length of the object's own labels */
	char value[64];
	size_t order;
};

struct samples {
	struct sample *v;
	size_t n, cap;
};

/* Append s to buf as a metric/label-name part: [a-zA-Z0-9_], others become '_'. */
static void put_name(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	for (; *s && n + 1 < len; s++, n++) {
		char c = *s;

		buf[n] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_') ? c : '_';
	}
	buf[n] = '\0';
}

static void add_label(char *labels, const char *name, const char *val)
{
	size_t n = strlen(labels);
	char lname[64] = "";

	/* label names must not start with a digit or "__" (reserved) */
	if ((name[0] >= '0' && name[0] <= '9') || name[0] == '_')
		strcpy(lname, "l");
	put_name(lname, sizeof(lname), name);
	n += (size_t)snprintf(labels + n, LABELS_LEN - n, "%s%s=\"", n ? "," : "", lname);
	for (; *val && n + 4 < LABELS_LEN; val++) {
		if (*val == '\\' || *val == '"')
			labels[n++] = '\\', labels[n++] = *val;
		else if (*val == '\n')
			labels[n++] = '\\', labels[n++] = 'n';
		else
			labels[n++] = *val;
	}
	if (n + 2 <= LABELS_LEN)
		labels[n++] = '"';
	labels[n < LABELS_LEN ? n : LABELS_LEN - 1] = '\0';
}

static bool has_label(const char *labels, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = labels; (p = strstr(p, name)); p++)
		if ((p == labels || p[-1] == ',') && p[n] == '=')
			return true;
	return false;
}

static bool ends_with(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a >= b && !strcmp(s + a - b, sfx);
}

/*
 * Map key to family (without unit/_total fix-ups) and labels. last_field receives the
 * last component (the field of an info key).
 */
static void map_key(const struct ctl_kvl *kv, const char *key, char *family, size_t flen,
		    char *labels, const char **last_field, char *copy)
{
	char *c[MAX_COMPS], prefix[256] = "", obj[256] = "";
	unsigned n = 0, start = 0;

	strcpy(copy, key);
	for (char *p = copy, *save; n < MAX_COMPS && (p = strtok_r(n ? NULL : p, ".", &save));)
		c[n++] = p;
	labels[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		size_t pl = strlen(prefix);

		if (ctl_is_digits(c[i]) && i + 1 < n && i > 0) {
			const char *v;

			start = i - 1;
			snprintf(prefix + pl, sizeof(prefix) - pl, ".%s", c[i]);
			snprintf(obj, sizeof(obj), "%s", prefix);	/* innermost object */
			if (!strcmp(c[i - 1], "path")) {
				v = ctl_kvl_getf(kv, "%s.name", prefix);
				add_label(labels, "path", v ? v : c[i]);
			} else {
				add_label(labels, c[i - 1], c[i]);
				v = ctl_kvl_getf(kv, "%s.peer", prefix);
				if (!strcmp(c[i - 1], "session") && v)
					add_label(labels, "peer", v);
			}
			continue;
		}
		if (ctl_is_digits(c[i]) && i + 1 == n && i > 0) {	/* per-path statistic */
			const char *v = ctl_kvl_getf(kv, "%s.path.%s.name", obj, c[i]);

			add_label(labels, "path", v ? v : c[i]);
			c[i] = NULL;
			continue;
		}
		snprintf(prefix + pl, sizeof(prefix) - pl, "%s%s", pl ? "." : "", c[i]);
	}
	snprintf(family, flen, "mptund");
	for (unsigned i = start; i < n; i++)
		if (c[i] && !ctl_is_digits(c[i])) {
			strncat(family, "_", flen - strlen(family) - 1);
			put_name(family, flen, c[i]);
		}
	*last_field = n && c[n - 1] ? c[n - 1] : "value";
}

static struct sample *push(struct samples *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct sample *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	s->v[s->n].order = s->n;
	return &s->v[s->n++];
}

static void fix_units(struct sample *sm, const char *val)
{
	static const struct { const char *sfx, *to; double mul; } units[] = {
		{ "_us", "_seconds", 1e-6 }, { "_ms", "_seconds", 1e-3 },
		{ "_ns", "_seconds", 1e-9 }, { "_bytes_per_s", "_bytes_per_second", 1 },
	};

	snprintf(sm->value, sizeof(sm->value), "%s", val);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t fl = strlen(sm->family), sl = strlen(units[i].sfx);

		if (!ends_with(sm->family, units[i].sfx))
			continue;
		snprintf(sm->family + fl - sl, sizeof(sm->family) - (fl - sl), "%s", units[i].to);
		if (units[i].mul != 1)
			snprintf(sm->value, sizeof(sm->value), "%.9g", strtod(val, NULL) * units[i].mul);
		break;
	}
	if (sm->kind == MPT_CTL_COUNTER && !ends_with(sm->family, "_total"))
		strncat(sm->family, "_total", sizeof(sm->family) - strlen(sm->family) - 1);
}

/* Add key's text value as a label of its object's _info sample. */
static int add_info(struct samples *s, const char *family, const char *labels,
		    const char *field, const char *val)
{
	struct sample *sm = NULL;
	char fam[160];

	size_t keep = strlen(family) > strlen(field) ? strlen(family) - strlen(field) - 1 : 0;

	snprintf(fam, sizeof(fam), "%.*s_info", (int)keep, family);
	for (size_t i = s->n; i-- > 0 && !sm;)
		if (!strcmp(s->v[i].family, fam) && s->v[i].kind == MPT_CTL_INFO &&
		    s->v[i].base_len == strlen(labels) &&
		    !strncmp(s->v[i].labels, labels, strlen(labels)))
			sm = &s->v[i];
	if (!sm) {
		sm = push(s);
		if (!sm)
			return -ENOMEM;
		snprintf(sm->family, sizeof(sm->family), "%s", fam);
		snprintf(sm->labels, sizeof(sm->labels), "%s", labels);
		sm->base_len = strlen(sm->labels);
		sm->kind = MPT_CTL_INFO;
		sm->help = "descriptive text of the object, as labels";
		strcpy(sm->value, "1");
	}
	if (!has_label(sm->labels, field))
		add_label(sm->labels, field, val);
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static const char *type_name(enum mpt_ctl_kind k)
{
	return k == MPT_CTL_COUNTER ? "counter" : "gauge";
}

static void put_help(FILE *f, const char *family, const char *help)
{
	fprintf(f, "# HELP %s ", family);
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", f);
		else if (*help == '\n')
			fputs("\\n", f);
		else
			fputc(*help, f);
	}
	fputc('\n', f);
}

static int prom_dump(FILE *f, const struct ctl_kvl *kv)
{
	struct samples s = { 0 };
	char copy[256], family[160], labels[LABELS_LEN];
	const char *field;
	int rc = 0;

	for (size_t i = 0; i < kv->n && !rc; i++) {
		const char *key = kv->v[i].key, *val = kv->v[i].val;
		const struct mpt_ctl_key *k = mpt_ctl_key_find(key);
		struct sample *sm;

		if (strlen(key) >= sizeof(copy))
			continue;
		map_key(kv, key, family, sizeof(family), labels, &field, copy);
		if ((k && k->kind == MPT_CTL_INFO) || !ctl_is_number(val)) {
			rc = add_info(&s, family, labels, field, val);
			continue;
		}
		sm = push(&s);
		if (!sm) {
			rc = -ENOMEM;
			break;
		}
		snprintf(sm->family, sizeof(sm->family), "%s", family);
		snprintf(sm->labels, sizeof(sm->labels), "%s", labels);
		sm->kind = k ? k->kind : MPT_CTL_GAUGE;
		sm->help = k ? k->help : "mptund statistic (not in the vocabulary)";
		fix_units(sm, val);
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(s.v[0]), cmp_sample);
	for (size_t i = 0; i < s.n && !rc; i++) {
		const struct sample *sm = &s.v[i];

		if (i == 0 || strcmp(sm->family, s.v[i - 1].family)) {
			put_help(f, sm->family, sm->help);
			fprintf(f, "# TYPE %s %s\n", sm->family, type_name(sm->kind));
		}
		if (sm->labels[0])
			fprintf(f, "%s{%s} %s\n", sm->family, sm->labels, sm->value);
		else
			fprintf(f, "%s %s\n", sm->family, sm->value);
	}
	free(s.v);
	return rc ? rc : ferror(f) ? -EIO : 0;
}

const struct ctl_backend ctl_backend_prom = {
	.name = "prometheus",
	.dump = prom_dump,
	.sample = NULL,
};
