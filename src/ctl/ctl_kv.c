// SPDX-License-Identifier: MIT
/* Key=value lists and the reply parser of mptund-ctl (see ctl_kv.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_kv.h"

void ctl_kvl_free(struct ctl_kvl *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].val);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int ctl_kvl_add(struct ctl_kvl *l, const char *key, const char *val)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ctl_kv *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].key = strdup(key);
	l->v[l->n].val = strdup(val);
	if (!l->v[l->n].key || !l->v[l->n].val) {
		free(l->v[l->n].key);
		free(l->v[l->n].val);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

int ctl_kvl_add_line(struct ctl_kvl *l, const char *line)
{
	const char *eq = strchr(line, '=');
	char key[256];

	if (!eq || eq == line || (size_t)(eq - line) >= sizeof(key))
		return -EINVAL;
	memcpy(key, line, (size_t)(eq - line));
	key[eq - line] = '\0';
	return ctl_kvl_add(l, key, eq + 1);
}

const char *ctl_kvl_get(const struct ctl_kvl *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].val;
	return NULL;
}

const char *ctl_kvl_getf(const struct ctl_kvl *l, const char *fmt, ...)
{
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	return ctl_kvl_get(l, key);
}

unsigned ctl_kvl_count(const struct ctl_kvl *l, const char *prefix)
{
	unsigned n = 0;
	char want[256];
	bool found;

	do {
		int len = snprintf(want, sizeof(want), "%s.%u.", prefix, n);

		found = false;
		for (size_t i = 0; i < l->n && !found; i++)
			found = !strncmp(l->v[i].key, want, (size_t)len);
		n += found;
	} while (found);
	return n;
}

static const char *digits(const char *s)
{
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		p++;
	return p == s ? NULL : p;
}

bool ctl_is_number(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (!(p = digits(p)))
		return false;
	if (*p == '.' && !(p = digits(p + 1)))
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(p = digits(p)))
			return false;
	}
	return *p == '\0';
}

long ctl_reply_parse(const char *text, size_t len, struct ctl_kvl *l, int *err_no,
		     char *msg, size_t msglen)
{
	size_t pos = 0;
	bool first = true, done = false;
	char line[4096];

	msg[0] = '\0';
	*err_no = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n;

		if (!nl)
			return 0;
		n = (size_t)(nl - (text + pos));
		if (n >= sizeof(line))
			n = sizeof(line) - 1;	/* cut absurd lines, keep framing */
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos = (size_t)(nl - text) + 1;
		if (done) {
			if (n)
				return -EPROTO;
			return (long)pos;
		}
		if (first) {
			if (strncmp(line, "version=", 8))
				return -EPROTO;
			first = false;
		} else if (!strncmp(line, "errno=", 6)) {
			char *e;

			*err_no = (int)strtol(line + 6, &e, 10);
			if (*e || e == line + 6)
				return -EPROTO;
			done = true;
		} else if (!strncmp(line, "message=", 8)) {
			snprintf(msg, msglen, "%s", line + 8);
		} else if (ctl_kvl_add_line(l, line)) {
			return -EPROTO;
		}
	}
	return 0;
}

bool ctl_is_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}
