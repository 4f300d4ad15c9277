// SPDX-License-Identifier: MIT
/*
 * One "Key = value" of mptund.conf(5): parse the value by the key's type (config_int.h)
 * and store it, or fail with "FILE:LINE: Key: message" quoting the value.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config_int.h"
#include "keys.h"
#include "log.h"

/* Parser errors, as STYLE.md asks: FILE:LINE: KEY: message (config.c reports
 * through it too). */
static int __attribute__((format(printf, 4, 0)))
failv(struct cfg_parser *ps, int line, const char *key, const char *fmt, va_list ap)
{
	int n;

	if (line > 0)
		n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->cfg->file, line);
	else
		n = snprintf(ps->err, ps->errlen, "%s: ", ps->cfg->file);
	if (key && n >= 0 && (size_t)n < ps->errlen)
		n += snprintf(ps->err + n, ps->errlen - (size_t)n, "%s: ", key);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	return -EINVAL;
}

int cfg_failat(struct cfg_parser *ps, int line, const char *key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = failv(ps, line, key, fmt, ap);
	va_end(ap);
	return rc;
}

static void list_modules(char *buf, size_t len, bool sched)
{
	size_t n = sched ? mpt_sched_count() : mpt_cc_count(), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *name = sched ? mpt_sched_at(i)->name : mpt_cc_at(i)->name;
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", name);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int set_prefixes(struct cfg_parser *ps, const struct cfg_key *k, void *base,
			const char *value)
{
	struct mpt_prefix *arr = (struct mpt_prefix *)((char *)base + k->off);
	unsigned *count = (unsigned *)((char *)base + k->count_off);
	char item[MPT_MAX_LINE];
	const char *p = value;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char *s = item, *e;

		memcpy(item, p, n);
		item[n] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t'); e--)
			e[-1] = '\0';
		if (!*s)
			return cfg_fail(ps, k->name, "'%s' has an empty list entry", value);
		if (*count >= k->size)
			return cfg_fail(ps, k->name, "'%s' is one entry too many (max %zu)", s,
					k->size);
		if (mpt_prefix_parse(s, &arr[*count]) < 0)
			return cfg_fail(ps, k->name, "'%s' is not a prefix (ADDRESS[/LENGTH])", s);
		if (k->type == T_ROUTES)
			mpt_prefix_mask(&arr[*count]);
		(*count)++;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int set_number(struct cfg_parser *ps, const struct cfg_key *k, const char *value,
		      uint64_t *v)
{
	int rc = cfgv_u64(value, v);

	if (rc == -EINVAL)
		return cfg_fail(ps, k->name, "'%s' is not a number", value);
	if (rc < 0 || *v < k->min || *v > k->max)
		return cfg_fail(ps, k->name, "'%s' is out of range [%llu, %llu]", value,
			    (unsigned long long)k->min, (unsigned long long)k->max);
	return 0;
}

static int set_duration(struct cfg_parser *ps, const struct cfg_key *k, const char *value,
			uint64_t *ns)
{
	char lo[32], hi[32];
	int rc = cfgv_duration(value, k->type == T_MS ? MPT_NSEC_PER_MSEC : MPT_NSEC_PER_SEC,
			       ns);

	if (rc == -EINVAL)
		return cfg_fail(ps, k->name, "'%s' is not a duration (e.g. 200ms, 2s, 1m; bare "
			    "numbers are %s)", value, k->type == T_MS ? "ms" : "seconds");
	if (rc < 0 || *ns < k->min || *ns > k->max) {
		cfgv_duration_format(k->min, lo, sizeof(lo));
		cfgv_duration_format(k->max, hi, sizeof(hi));
		return cfg_fail(ps, k->name, "'%s' is out of range [%s, %s]", value, lo, hi);
	}
	return 0;
}

static int set_module(struct cfg_parser *ps, const struct cfg_key *k, char *dst,
		      const char *value)
{
	const char *name = NULL;
	char avail[256];

	if (k->type == T_SCHED) {
		const struct mpt_sched_ops *ops = mpt_sched_find(value);

		name = ops ? ops->name : NULL;
	} else {
		const struct mpt_cc_ops *ops = mpt_cc_find(value);

		name = ops ? ops->name : NULL;
	}
	if (!name || strlen(name) >= k->size) {
		list_modules(avail, sizeof(avail), k->type == T_SCHED);
		return cfg_fail(ps, k->name, "unknown %s '%s' (available: %s)",
			    k->type == T_SCHED ? "scheduler" : "congestion controller",
			    value, avail);
	}
	strcpy(dst, name);
	return 0;
}

/* A data budget (budget.h): an allowance and its period. */
static int set_budget(struct cfg_parser *ps, const struct cfg_key *k, void *f,
		      const char *value)
{
	char msg[256];

	if (mpt_budget_parse(value, f, msg, sizeof(msg)) < 0)
		return cfg_fail(ps, k->name, "%s", msg);
	return 0;
}

/* Keys whose value is a word or a name, copied or looked up as it is. */
static int set_text(struct cfg_parser *ps, const struct cfg_key *k, void *f,
		    const char *value)
{
	size_t len = strlen(value);

	switch (k->type) {
	case T_ROLE:
		if (strcasecmp(value, "ue") == 0)
			*(enum mpt_role *)f = MPT_ROLE_UE;
		else if (strcasecmp(value, "anchor") == 0)
			*(enum mpt_role *)f = MPT_ROLE_ANCHOR;
		else
			return cfg_fail(ps, k->name, "'%s' is not a role (ue, anchor)", value);
		return 0;
	case T_KEY:
		if (mpt_key_from_base64(f, value) < 0)
			return cfg_fail(ps, k->name, "'%s' is not a base64 X25519 key (44 "
				    "characters, as printed by wg genkey)", value);
		return 0;
	case T_IFNAME:
		if (len == 0 || len >= k->size || strpbrk(value, "/ \t:") ||
		    strcmp(value, ".") == 0 || strcmp(value, "..") == 0)
			return cfg_fail(ps, k->name, "'%s' is not an interface name (1-%zu "
				    "characters, no '/', ':' or spaces)", value, k->size - 1);
		strcpy(f, value);
		return 0;
	case T_IDENT:
		if (len >= k->size || !cfgv_ident_ok(value))
			return cfg_fail(ps, k->name, "'%s' is not a valid name (1-%zu characters "
				    "of A-Z a-z 0-9 _ . -)", value, k->size - 1);
		strcpy(f, value);
		return 0;
	case T_SOCKPATH:
		if (value[0] != '/' || len >= k->size)
			return cfg_fail(ps, k->name, "'%s' is not an absolute path of at most %zu "
				    "characters", value, k->size - 1);
		strcpy(f, value);
		return 0;
	default:
		break;
	}
	return cfg_fail(ps, k->name, "internal error: not a text key");
}

/* A rate with its unit (mptund.conf(5)), at most the key's maximum. */
static int set_rate(struct cfg_parser *ps, const struct cfg_key *k, void *f,
		    const char *value)
{
	char hi[32];
	uint64_t v;
	int rc = cfgv_rate(value, &v);

	if (rc == -EINVAL)
		return cfg_fail(ps, k->name, "'%s' is not a rate (e.g. 50Mbit, 1Gbit, or "
			    "bytes per second)", value);
	if (rc < 0 || v < k->min || v > k->max) {
		cfgv_rate_format(k->max, hi, sizeof(hi));
		return cfg_fail(ps, k->name, "'%s' is out of range [0, %s]", value, hi);
	}
	*(uint64_t *)f = v;
	return 0;
}

/* Addresses: a listen address (its port set apart), a source, an endpoint. */
static int set_address(struct cfg_parser *ps, const struct cfg_key *k, void *f,
		    const char *value)
{
	switch (k->type) {
	case T_LISTENADDR: {
		struct sockaddr_storage *ss = f;
		in_port_t port = ((struct sockaddr_in *)ss)->sin_port;
		struct in6_addr a;

		memset(ss, 0, sizeof(*ss));
		if (inet_pton(AF_INET, value, &a) == 1) {
			ss->ss_family = AF_INET;
			memcpy(&((struct sockaddr_in *)ss)->sin_addr, &a, 4);
		} else if (inet_pton(AF_INET6, value, &a) == 1) {
			ss->ss_family = AF_INET6;
			((struct sockaddr_in6 *)ss)->sin6_addr = a;
		} else {
			return cfg_fail(ps, k->name, "'%s' is not an IP address", value);
		}
		((struct sockaddr_in *)ss)->sin_port = port;
		return 0;
	}
	case T_SOURCE:
	case T_ENDPOINT: {
		struct sockaddr_storage *ss = f;
		struct in6_addr a;

		memset(ss, 0, sizeof(*ss));
		if (k->type == T_SOURCE && inet_pton(AF_INET, value, &a) == 1) {
			ss->ss_family = AF_INET;
			memcpy(&((struct sockaddr_in *)ss)->sin_addr, &a, 4);
		} else if (k->type == T_SOURCE && inet_pton(AF_INET6, value, &a) == 1) {
			ss->ss_family = AF_INET6;
			((struct sockaddr_in6 *)ss)->sin6_addr = a;
		} else if (mpt_sockaddr_parse(value, 0, ss) < 0) {
			return cfg_fail(ps, k->name, k->type == T_SOURCE ?
				    "'%s' is not an IP address (optionally ADDRESS:PORT)" :
				    "'%s' is not an ADDRESS:PORT (192.0.2.1:51820 or "
				    "[2001:db8::1]:51820)", value);
		}
		return 0;
	}
	default:
		break;
	}
	return cfg_fail(ps, k->name, "internal error: not an address key");
}

/* Keys with a fixed vocabulary: booleans, ciphers, recovery modes, log levels, tags. */
static int set_word(struct cfg_parser *ps, const struct cfg_key *k, void *f,
		    const char *value)
{
	int lvl;
	bool b;

	switch (k->type) {
	case T_BOOL:
		if (cfgv_bool(value, &b) < 0)
			return cfg_fail(ps, k->name, "'%s' is not a boolean (true/false)", value);
		*(bool *)f = b;
		return 0;
	case T_CIPHER:
		if (cfgv_cipher_parse(value, f) < 0)
			return cfg_fail(ps, k->name, "'%s' is not a cipher (chacha20-poly1305, "
				    "aes-256-gcm)", value);
		return 0;
	case T_RECOVERY:
		if (cfgv_recovery_parse(value, f) < 0)
			return cfg_fail(ps, k->name, "'%s' is not a recovery mode (off, "
				    "retransmit)", value);
		return 0;
	case T_LOGLEVEL:
		lvl = log_level_parse(value);
		if (lvl < LOG_ERR)
			return cfg_fail(ps, k->name, "'%s' is not a log level (error, warning, "
				    "notice, info, debug)", value);
		*(int *)f = lvl;
		return 0;
	case T_TAGS: {
		const char *bad;

		if (mpt_path_tags_parse(value, f, &bad) < 0)
			return cfg_fail(ps, k->name, "'%.*s' is not a path tag (metered, "
				    "high_cost, cellular, satellite)", (int)strcspn(bad, " \t,"),
				    bad);
		return 0;
	}
	default:
		break;
	}
	return cfg_fail(ps, k->name, "internal error: not a word key");
}

int cfg_set_value(struct cfg_parser *ps, const struct cfg_key *k, void *base,
		     const char *value)
{
	void *f = (char *)base + k->off;
	uint64_t v;

	switch (k->type) {
	case T_ROLE:
	case T_KEY:
	case T_IFNAME:
	case T_IDENT:
	case T_SOCKPATH:
		return set_text(ps, k, f, value);
	case T_PREFIXES:
	case T_ROUTES:
		return set_prefixes(ps, k, base, value);
	case T_BUDGET:
		return set_budget(ps, k, f, value);
	case T_U32:
		if (set_number(ps, k, value, &v) < 0)
			return -EINVAL;
		*(uint32_t *)f = (uint32_t)v;
		return 0;
	case T_U64:
		if (set_number(ps, k, value, &v) < 0)
			return -EINVAL;
		*(uint64_t *)f = v;
		return 0;
	case T_PORT:
		if (set_number(ps, k, value, &v) < 0)
			return -EINVAL;
		((struct sockaddr_in *)f)->sin_port = htons((uint16_t)v);	/* = sin6_port */
		return 0;
	case T_MS:
	case T_SEC:
		return set_duration(ps, k, value, f);
	case T_RATE:
		return set_rate(ps, k, f, value);
	case T_LISTENADDR:
	case T_SOURCE:
	case T_ENDPOINT:
		return set_address(ps, k, f, value);
	case T_BOOL:
	case T_CIPHER:
	case T_RECOVERY:
	case T_LOGLEVEL:
	case T_TAGS:
		return set_word(ps, k, f, value);
	case T_MTU:
		if (strcasecmp(value, "auto") == 0) {
			*(uint32_t *)f = 0;
			return 0;
		}
		if (set_number(ps, k, value, &v) < 0)
			return -EINVAL;
		*(uint32_t *)f = (uint32_t)v;
		return 0;
	case T_SCHED:
	case T_CC:
		return set_module(ps, k, f, value);
	}
	return cfg_fail(ps, k->name, "internal error: unhandled key type");
}

