// SPDX-License-Identifier: MIT
/*
 * Control-protocol request parser (see ctl_proto.h, include/mptund/ctl.h).
 *
 * Two passes over the buffer: first find the blank line that ends the request (or
 * decide it is incomplete or hopelessly long), then copy and validate its lines:
 * no NUL, no control characters, each line key=value with a [a-z0-9_.] key, cmd= first
 * and known, every key accepted by the command, no duplicates, required keys present.
 * Nothing here allocates or keeps state, so it is a fuzz target as it stands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_proto.h"

static const char *const k_stats[] = { "scope", "offset", "limit", "summary", NULL };
static const char *const k_watch[] = { "scope", "interval_ms", NULL };
static const char *const r_watch[] = { "interval_ms", NULL };
static const char *const k_sched[] = { "session", NULL };
static const char *const k_none[] = { NULL };
static const char *const k_set[] = { "session", "sched", "sched.*", "cc.*", NULL };
static const char *const k_path[] = { "session", "path", "admin", "cost", "weight", NULL };
static const char *const r_path[] = { "path", NULL };
static const char *const k_rule[] = { "op", "name", "pos", "r.*", NULL };
static const char *const r_rule[] = { "op", NULL };

const struct mpt_ctl_cmd_desc mpt_ctl_cmds[MPT_CTL_CMD_MAX] = {
	[MPT_CTL_CMD_STATS] = { "stats", false, k_stats, k_none },
	[MPT_CTL_CMD_WATCH] = { "watch", false, k_watch, r_watch },
	[MPT_CTL_CMD_SCHED] = { "sched", false, k_sched, k_none },
	[MPT_CTL_CMD_SCHED_LIST] = { "sched_list", false, k_none, k_none },
	[MPT_CTL_CMD_SET] = { "set", true, k_set, k_none },
	[MPT_CTL_CMD_PATH] = { "path", true, k_path, r_path },
	[MPT_CTL_CMD_RELOAD] = { "reload", true, k_none, k_none },
	[MPT_CTL_CMD_RULE_LIST] = { "rule_list", false, k_none, k_none },
	[MPT_CTL_CMD_RULE] = { "rule", true, k_rule, r_rule },
};

const char *mpt_ctl_quote(const char *s, size_t n, char *buf, size_t len)
{
	size_t i, max = len - 1;

	if (max > 48)
		max = 48;
	for (i = 0; i < n && i < max && s[i]; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

#define FAIL(rc, ...) do { snprintf(err, errlen, __VA_ARGS__); return (rc); } while (0)

static bool key_accepted(const struct mpt_ctl_cmd_desc *d, const char *key)
{
	for (const char *const *k = d->keys; *k; k++) {
		size_t n = strlen(*k);

		if (n > 2 && !strcmp(*k + n - 2, ".*")) {
			if (!strncmp(key, *k, n - 1) && key[n - 1] != '\0')
				return true;
		} else if (!strcmp(key, *k)) {
			return true;
		}
	}
	return false;
}

/* Pass 1: find the end of the request. Returns 0 with *end set, or an error. */
static int find_end(const char *buf, size_t len, size_t *end, size_t *used,
		    char *err, size_t errlen)
{
	size_t pos = 0;
	unsigned line = 0;

	*used = 0;
	for (;;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll;

		line++;
		if (!nl) {
			if (len - pos >= MPT_CTL_MAX_LINE)
				FAIL(-E2BIG, "line %u is longer than %d bytes", line,
				     MPT_CTL_MAX_LINE);
			if (len >= MPT_CTL_MAX_REQ)
				FAIL(-E2BIG, "request is longer than %d bytes", MPT_CTL_MAX_REQ);
			return -EAGAIN;
		}
		ll = (size_t)(nl - (buf + pos));
		if (ll == 0 || (ll == 1 && buf[pos] == '\r')) {
			*end = (size_t)(nl - buf) + 1;
			if (*end > MPT_CTL_MAX_REQ) {
				*used = *end;
				FAIL(-E2BIG, "request is longer than %d bytes", MPT_CTL_MAX_REQ);
			}
			return 0;
		}
		pos += ll + 1;
		if (pos >= MPT_CTL_MAX_REQ)
			FAIL(-E2BIG, "request is longer than %d bytes", MPT_CTL_MAX_REQ);
	}
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* Validate one line (NUL-terminated, LF and CR stripped) and split it at '='. */
static int split_line(char *s, size_t n, unsigned line, char **val, char *err, size_t errlen)
{
	char q[64], *eq;

	if (memchr(s, '\0', n))
		FAIL(-EINVAL, "line %u contains a NUL byte", line);
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			FAIL(-EINVAL, "line %u contains control character 0x%02x", line,
			     (unsigned char)s[i]);
	eq = strchr(s, '=');
	if (!eq || eq == s)
		FAIL(-EINVAL, "line %u: '%s' is not key=value", line,
		     mpt_ctl_quote(s, n, q, sizeof(q)));
	for (char *k = s; k < eq; k++)
		if (!key_char(*k))
			FAIL(-EINVAL, "line %u: key '%s' has characters outside [a-z0-9_.]",
			     line, mpt_ctl_quote(s, (size_t)(eq - s), q, sizeof(q)));
	*eq = '\0';
	*val = eq + 1;
	return 0;
}

static int check_version(const char *val, char *err, size_t errlen)
{
	char q[64];

	if (strcmp(val, "1"))
		FAIL(-EPROTONOSUPPORT, "protocol version '%s' is not supported (this daemon speaks %d)",
		     mpt_ctl_quote(val, strlen(val), q, sizeof(q)), MPT_CTL_VERSION);
	return 0;
}

/* Pass 2: copy and validate the lines of buf[0..end). */
static int parse_lines(const char *buf, size_t end, struct mpt_ctl_req *req,
		       char *err, size_t errlen)
{
	const struct mpt_ctl_cmd_desc *d = NULL;
	size_t pos = 0;
	unsigned line = 0;
	char q[64];
	int rc;

	memcpy(req->text, buf, end);
	req->nkv = 0;
	while (pos < end) {
		char *s = req->text + pos, *nl = memchr(s, '\n', end - pos), *val;
		size_t n = (size_t)(nl - s);

		line++;
		pos += n + 1;
		if (n + 1 > MPT_CTL_MAX_LINE)
			FAIL(-E2BIG, "line %u is longer than %d bytes", line, MPT_CTL_MAX_LINE);
		*nl = '\0';
		if (n && s[n - 1] == '\r')
			s[--n] = '\0';
		if (n == 0)
			break;			/* the blank line */
		rc = split_line(s, n, line, &val, err, errlen);
		if (rc)
			return rc;
		if (line == 1) {
			if (strcmp(s, "cmd"))
				FAIL(-EINVAL, "line 1: expected cmd=NAME, got key '%s'",
				     mpt_ctl_quote(s, strlen(s), q, sizeof(q)));
			for (unsigned c = 0; c < MPT_CTL_CMD_MAX; c++)
				if (!strcmp(val, mpt_ctl_cmds[c].name)) {
					d = &mpt_ctl_cmds[c];
					req->cmd = (enum mpt_ctl_cmd)c;
				}
			if (!d)
				FAIL(-EINVAL, "unknown command '%s'",
				     mpt_ctl_quote(val, strlen(val), q, sizeof(q)));
			continue;
		}
		if (!strcmp(s, "version")) {
			rc = check_version(val, err, errlen);
			if (rc)
				return rc;
			continue;
		}
		if (!key_accepted(d, s))
			FAIL(-EINVAL, "command '%s' takes no key '%s'", d->name,
			     mpt_ctl_quote(s, strlen(s), q, sizeof(q)));
		if (mpt_ctl_req_get(req, s))
			FAIL(-EINVAL, "duplicate key '%s'", mpt_ctl_quote(s, strlen(s), q, sizeof(q)));
		if (req->nkv + 1 >= MPT_CTL_MAX_KEYS)
			FAIL(-E2BIG, "more than %d keys", MPT_CTL_MAX_KEYS - 1);
		req->kv[req->nkv].key = s;
		req->kv[req->nkv].val = val;
		req->nkv++;
	}
	if (!d)
		FAIL(-EINVAL, "empty request: expected cmd=NAME");
	for (const char *const *k = d->required; *k; k++)
		if (!mpt_ctl_req_get(req, *k))
			FAIL(-EINVAL, "command '%s' needs %s=", d->name, *k);
	return 0;
}

int mpt_ctl_parse(const char *buf, size_t len, struct mpt_ctl_req *req, size_t *used,
		  char *err, size_t errlen)
{
	size_t end;
	int rc;

	if (errlen)
		err[0] = '\0';
	rc = find_end(buf, len, &end, used, err, errlen);
	if (rc)
		return rc;
	*used = end;
	return parse_lines(buf, end, req, err, errlen);
}

const char *mpt_ctl_req_get(const struct mpt_ctl_req *req, const char *key)
{
	for (unsigned i = 0; i < req->nkv; i++)
		if (!strcmp(req->kv[i].key, key))
			return req->kv[i].val;
	return NULL;
}

int mpt_ctl_req_u32(const struct mpt_ctl_req *req, const char *key, uint32_t def,
		    uint32_t min, uint32_t max, uint32_t *v, char *err, size_t errlen)
{
	const char *s = mpt_ctl_req_get(req, key);
	unsigned long long x;
	char *e, q[64];

	*v = def;
	if (!s)
		return 0;
	errno = 0;
	x = strtoull(s, &e, 10);
	if (*s < '0' || *s > '9' || *e || errno || x < min || x > max)
		FAIL(-EINVAL, "%s: '%s' is not a number in [%u, %u]", key,
		     mpt_ctl_quote(s, strlen(s), q, sizeof(q)), min, max);
	*v = (uint32_t)x;
	return 0;
}
