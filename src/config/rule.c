// SPDX-License-Identifier: MIT
/*
 * Steering rules: keys, values, the spec syntax, the printed form and matching
 * (rule.h). Every error quotes the offending value and names its key.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "config_int.h"
#include "rule.h"

enum rule_key {
	RK_NAME,
	RK_PEER,
	RK_DST,
	RK_SRC,
	RK_PROTO,
	RK_DPORT,
	RK_SPORT,
	RK_DSCP,
	RK_SCHED,
	RK_ORDERED,
	RK_MAX,
};

static const char *const rule_keys[RK_MAX] = {
	[RK_NAME] = "Name",
	[RK_PEER] = "Peer",
	[RK_DST] = "Destination",
	[RK_SRC] = "Source",
	[RK_PROTO] = "Protocol",
	[RK_DPORT] = "DestinationPort",
	[RK_SPORT] = "SourcePort",
	[RK_DSCP] = "DSCP",
	[RK_SCHED] = "Scheduler",
	[RK_ORDERED] = "Ordered",
};

static const struct {
	const char *name;
	int num;
} proto_names[] = {
	{ "tcp", 6 }, { "udp", 17 }, { "icmp", MPT_RULE_PROTO_ICMP }, { "icmpv6", 58 },
	{ "sctp", 132 }, { "dccp", 33 }, { "udplite", 136 }, { "gre", 47 }, { "esp", 50 },
};

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

const char *mpt_rule_key_name(size_t i)
{
	return i < RK_MAX ? rule_keys[i] : NULL;
}

void mpt_rule_init(struct mpt_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->proto = MPT_RULE_PROTO_ANY;
}

/* Decimal in [0, max] filling s; -EINVAL otherwise. */
static int number(const char *s, unsigned max, unsigned *out)
{
	uint64_t v;

	if (cfgv_u64(s, &v) < 0 || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* "A" or "A-B" with A <= B <= max. */
static int range(const char *s, unsigned max, unsigned *lo, unsigned *hi)
{
	char buf[16];
	const char *dash = strchr(s, '-');

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	if (!dash)
		return number(s, max, lo) < 0 ? -EINVAL : (*hi = *lo, 0);
	memcpy(buf, s, (size_t)(dash - s));
	buf[dash - s] = '\0';
	if (number(buf, max, lo) < 0 || number(dash + 1, max, hi) < 0 || *lo > *hi)
		return -EINVAL;
	return 0;
}

/* Next comma-separated item of *p, trimmed, into item; false at the end. */
static bool next_item(const char **p, char *item, size_t cap, bool *too_long)
{
	const char *s = *p, *e;
	size_t n;

	*too_long = false;
	if (!*s)
		return false;
	e = strchr(s, ',');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + n;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= cap) {
		*too_long = true;
		n = cap - 1;
	}
	memcpy(item, s, n);
	item[n] = '\0';
	return true;
}

static int set_prefixes(struct mpt_prefix *arr, uint8_t *count, const char *key,
			const char *value, char *err, size_t errlen)
{
	const char *p = value;
	char item[64];
	bool long_item;

	while (next_item(&p, item, sizeof(item), &long_item)) {
		if (!item[0])
			FAIL("%s: '%s' has an empty list entry", key, value);
		if (*count >= MPT_RULE_MAX_PREFIXES)
			FAIL("%s: '%s' is one prefix too many (max %d)", key, item,
			     MPT_RULE_MAX_PREFIXES);
		if (long_item || mpt_prefix_parse(item, &arr[*count]) < 0)
			FAIL("%s: '%s' is not a prefix (ADDRESS[/LENGTH])", key, item);
		mpt_prefix_mask(&arr[*count]);
		(*count)++;
	}
	return 0;
}

static int set_ports(struct mpt_port_range *arr, uint8_t *count, const char *key,
		     const char *value, char *err, size_t errlen)
{
	const char *p = value;
	char item[32];
	bool long_item;
	unsigned lo, hi;

	while (next_item(&p, item, sizeof(item), &long_item)) {
		if (!item[0])
			FAIL("%s: '%s' has an empty list entry", key, value);
		if (*count >= MPT_RULE_MAX_PORTS)
			FAIL("%s: '%s' is one range too many (max %d)", key, item,
			     MPT_RULE_MAX_PORTS);
		if (long_item || range(item, 65535, &lo, &hi) < 0)
			FAIL("%s: '%s' is not a port or a range LOW-HIGH in 0..65535", key,
			     item);
		arr[*count].lo = (uint16_t)lo;
		arr[*count].hi = (uint16_t)hi;
		(*count)++;
	}
	return 0;
}

static int set_dscp(uint64_t *mask, const char *value, char *err, size_t errlen)
{
	const char *p = value;
	char item[32];
	bool long_item;
	unsigned lo, hi;

	while (next_item(&p, item, sizeof(item), &long_item)) {
		if (long_item || range(item, 63, &lo, &hi) < 0)
			FAIL("DSCP: '%s' is not a code point or a range LOW-HIGH in 0..63",
			     item);
		for (unsigned d = lo; d <= hi; d++)
			*mask |= 1ULL << d;
	}
	return 0;
}

static int set_proto(int16_t *proto, const char *value, char *err, size_t errlen)
{
	unsigned n;

	for (size_t i = 0; i < MPT_ARRAY_SIZE(proto_names); i++)
		if (strcasecmp(value, proto_names[i].name) == 0) {
			*proto = (int16_t)proto_names[i].num;
			return 0;
		}
	if (number(value, 255, &n) < 0)
		FAIL("Protocol: '%s' is not tcp, udp, icmp, icmpv6, sctp, dccp, udplite, gre, "
		     "esp or a number in 0..255", value);
	*proto = (int16_t)n;
	return 0;
}

static int set_ident(char *dst, const char *key, const char *value, char *err,
		     size_t errlen)
{
	if (strlen(value) >= MPT_NAME_LEN || !cfgv_ident_ok(value))
		FAIL("%s: '%s' is not a name of up to %d characters [A-Za-z0-9_.-]", key,
		     value, MPT_NAME_LEN - 1);
	strcpy(dst, value);
	return 0;
}

static int set_param(struct mpt_rule *r, const char *key, const char *value, char *err,
		     size_t errlen)
{
	struct mpt_override *o;

	for (unsigned i = 0; i < r->nparams; i++)
		if (strcasecmp(r->params[i].name, key) == 0)
			FAIL("%s: set twice in this rule", key);
	if (strlen(key) >= sizeof(o->name) || !cfgv_ident_ok(key))
		FAIL("'%s': unknown key in [Rule]", key);
	if (strlen(value) >= sizeof(o->value))
		FAIL("%s: '%s' is too long (max %zu characters)", key, value,
		     sizeof(o->value) - 1);
	if (r->nparams >= MPT_RULE_MAX_PARAMS)
		FAIL("%s: too many tunables in one rule (max %d)", key, MPT_RULE_MAX_PARAMS);
	o = &r->params[r->nparams++];
	strcpy(o->name, key);
	strcpy(o->value, value);
	o->line = 0;
	return 0;
}

static int set_ordered(struct mpt_rule *r, const char *value, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < MPT_ARRAY_SIZE(yes); i++) {
		if (strcasecmp(value, yes[i]) == 0) {
			r->unordered = false;
			return 0;
		}
		if (strcasecmp(value, no[i]) == 0) {
			r->unordered = true;
			return 0;
		}
	}
	FAIL("Ordered: '%s' is not yes or no", value);
}

int mpt_rule_set(struct mpt_rule *r, const char *key, const char *value, char *err,
		 size_t errlen)
{
	size_t k;

	for (k = 0; k < RK_MAX; k++)
		if (strcasecmp(key, rule_keys[k]) == 0)
			break;
	if (!*value)
		FAIL("%s: empty value", key);
	switch (k) {
	case RK_NAME:
		return set_ident(r->name, "Name", value, err, errlen);
	case RK_PEER:
		return set_ident(r->peer, "Peer", value, err, errlen);
	case RK_DST:
		return set_prefixes(r->dst, &r->ndst, "Destination", value, err, errlen);
	case RK_SRC:
		return set_prefixes(r->src, &r->nsrc, "Source", value, err, errlen);
	case RK_PROTO:
		return set_proto(&r->proto, value, err, errlen);
	case RK_DPORT:
		return set_ports(r->dport, &r->ndport, "DestinationPort", value, err, errlen);
	case RK_SPORT:
		return set_ports(r->sport, &r->nsport, "SourcePort", value, err, errlen);
	case RK_DSCP:
		return set_dscp(&r->dscp, value, err, errlen);
	case RK_ORDERED:
		return set_ordered(r, value, err, errlen);
	case RK_SCHED:
		if (!mpt_sched_find(value))
			FAIL("Scheduler: '%s' is not a scheduler (mptund-ctl sched list)",
			     value);
		snprintf(r->sched, sizeof(r->sched), "%s", mpt_sched_find(value)->name);
		return 0;
	default:
		return set_param(r, key, value, err, errlen);
	}
}

static const char *proto_name(int proto, char *buf, size_t len)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(proto_names); i++)
		if (proto_names[i].num == proto)
			return proto_names[i].name;
	snprintf(buf, len, "%d", proto);
	return buf;
}

int mpt_rule_check(struct mpt_rule *r, int *line, char *err, size_t errlen)
{
	char pbuf[8];

	const struct mpt_sched_ops *ops;
	union {
		max_align_t align;
		unsigned char b[MPT_SCHED_PRIV_SIZE];
	} blob;
	char msg[192];

	*line = 0;
	if (!r->name[0])
		FAIL("Name: missing in the rule");
	ops = mpt_sched_find(r->sched);
	if (!ops)
		FAIL("Scheduler: missing in rule '%s'", r->name);
	if ((r->ndport || r->nsport) && r->proto != MPT_RULE_PROTO_ANY && r->proto != 6 &&
	    r->proto != 17 && r->proto != 132 && r->proto != 33 && r->proto != 136)
		FAIL("Protocol: '%s' has no ports, but rule '%s' matches on ports",
		     proto_name(r->proto, pbuf, sizeof(pbuf)), r->name);
	for (unsigned i = 0; i < r->nparams; i++) {
		const struct mpt_param *p = mpt_param_find(ops->params, ops->nparams,
							   r->params[i].name);

		*line = r->params[i].line;
		if (!p)
			FAIL("%s: not a key of [Rule] nor a tunable of %s", r->params[i].name,
			     ops->name);
		if (p->offset >= sizeof(blob) ||
		    mpt_param_parse(p, blob.b, r->params[i].value, msg, sizeof(msg)) < 0)
			FAIL("%s", msg);
		snprintf(r->params[i].name, sizeof(r->params[i].name), "%s", p->name);
	}
	*line = 0;
	return 0;
}

int mpt_rule_parse(struct mpt_rule *r, const char *spec, size_t len, char *err,
		   size_t errlen)
{
	char tok[MPT_RULE_SPEC_MAX];
	size_t pos = 0;
	int line;

	mpt_rule_init(r);
	while (pos < len) {
		size_t start, n;
		char *eq;
		int ret;

		while (pos < len && (spec[pos] == ' ' || spec[pos] == '\t'))
			pos++;
		start = pos;
		while (pos < len && spec[pos] != ' ' && spec[pos] != '\t')
			pos++;
		n = pos - start;
		if (!n)
			break;
		if (n >= sizeof(tok))
			FAIL("rule spec: a token is longer than %zu characters", sizeof(tok) - 1);
		memcpy(tok, spec + start, n);
		tok[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)tok[i] < 0x20 || tok[i] == 0x7f)
				FAIL("rule spec: control character in '%.40s'", tok);
		eq = strchr(tok, '=');
		if (!eq || eq == tok)
			FAIL("rule spec: '%.60s' is not Key=value", tok);
		*eq = '\0';
		ret = mpt_rule_set(r, tok, eq + 1, err, errlen);
		if (ret < 0)
			return ret;
	}
	return mpt_rule_check(r, &line, err, errlen);
}

int mpt_rule_parse_set(const char *text, size_t len, struct mpt_rule *out, unsigned max,
		       unsigned *n, char *err, size_t errlen)
{
	size_t pos = 0;
	char msg[256];

	*n = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
		struct mpt_rule *r = &out[*n < max ? *n : 0];
		size_t blank = 0;

		while (blank < ll && (text[pos + blank] == ' ' || text[pos + blank] == '\t'))
			blank++;
		if (blank < ll) {
			if (*n >= max)
				FAIL("rule %u: more than %u rules", *n + 1, max);
			if (memchr(text + pos, '\0', ll))
				FAIL("rule %u: NUL byte", *n + 1);
			if (mpt_rule_parse(r, text + pos, ll, msg, sizeof(msg)) < 0)
				FAIL("rule %u: %s", *n + 1, msg);
			if (r->peer[0])
				FAIL("rule %u: Peer: '%s': a pushed rule names no peer", *n + 1,
				     r->peer);
			for (unsigned i = 0; i < *n; i++)
				if (strcmp(out[i].name, r->name) == 0)
					FAIL("rule %u: Name: '%s' twice", *n + 1, r->name);
			(*n)++;
		}
		pos += ll + 1;
	}
	return 0;
}

/* Append to buf at *used; false when it does not fit. */
static bool __attribute__((format(printf, 4, 5)))
put(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		return false;
	*used += (size_t)n;
	return true;
}

static bool put_prefixes(char *buf, size_t len, size_t *used, const char *key,
			 const struct mpt_prefix *arr, unsigned n)
{
	char pfx[64];

	for (unsigned i = 0; i < n; i++) {
		mpt_prefix_format(&arr[i], pfx, sizeof(pfx));
		if (!put(buf, len, used, "%s%s", i ? "," : key, pfx))
			return false;
	}
	return true;
}

static bool put_ranges(char *buf, size_t len, size_t *used, const char *key,
		       const struct mpt_port_range *arr, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bool ok = arr[i].lo == arr[i].hi
			? put(buf, len, used, "%s%u", i ? "," : key, arr[i].lo)
			: put(buf, len, used, "%s%u-%u", i ? "," : key, arr[i].lo, arr[i].hi);

		if (!ok)
			return false;
	}
	return true;
}

static bool put_proto(char *buf, size_t len, size_t *used, int proto)
{
	char pbuf[8];

	return put(buf, len, used, " Protocol=%s", proto_name(proto, pbuf, sizeof(pbuf)));
}

static bool put_dscp(char *buf, size_t len, size_t *used, uint64_t mask)
{
	bool first = true;

	for (unsigned d = 0; d < 64; d++) {
		unsigned e = d;

		if (!(mask >> d & 1))
			continue;
		while (e < 63 && (mask >> (e + 1) & 1))
			e++;
		if (!(e == d ? put(buf, len, used, "%s%u", first ? " DSCP=" : ",", d)
			     : put(buf, len, used, "%s%u-%u", first ? " DSCP=" : ",", d, e)))
			return false;
		first = false;
		d = e;
	}
	return true;
}

int mpt_rule_format(const struct mpt_rule *r, char *buf, size_t len)
{
	size_t used = 0;
	bool ok;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	ok = put(buf, len, &used, "Name=%s", r->name) &&
	     (!r->peer[0] || put(buf, len, &used, " Peer=%s", r->peer)) &&
	     put_prefixes(buf, len, &used, " Destination=", r->dst, r->ndst) &&
	     put_prefixes(buf, len, &used, " Source=", r->src, r->nsrc) &&
	     (r->proto == MPT_RULE_PROTO_ANY || put_proto(buf, len, &used, r->proto)) &&
	     put_ranges(buf, len, &used, " DestinationPort=", r->dport, r->ndport) &&
	     put_ranges(buf, len, &used, " SourcePort=", r->sport, r->nsport) &&
	     put_dscp(buf, len, &used, r->dscp) &&
	     put(buf, len, &used, " Scheduler=%s", r->sched) &&
	     (!r->unordered || put(buf, len, &used, " Ordered=no"));
	for (unsigned i = 0; ok && i < r->nparams; i++)
		ok = put(buf, len, &used, " %s=%s", r->params[i].name, r->params[i].value);
	return ok ? (int)used : -ENOSPC;
}

bool mpt_rule_equal(const struct mpt_rule *a, const struct mpt_rule *b)
{
	char fa[MPT_RULE_SPEC_MAX], fb[MPT_RULE_SPEC_MAX];

	if (mpt_rule_format(a, fa, sizeof(fa)) < 0 || mpt_rule_format(b, fb, sizeof(fb)) < 0)
		return false;
	return strcmp(fa, fb) == 0;
}

/* addr (family's length) inside the masked prefix p. */
static bool in_prefix(const struct mpt_prefix *p, int family, const uint8_t *addr)
{
	unsigned full = p->plen / 8u, rest = p->plen % 8u;

	if (p->family != family || memcmp(p->addr.bytes, addr, full) != 0)
		return false;
	return !rest || ((addr[full] ^ p->addr.bytes[full]) & (0xff00u >> rest) & 0xff) == 0;
}

static bool any_prefix(const struct mpt_prefix *arr, unsigned n, int family,
		       const uint8_t *addr)
{
	if (!n)
		return true;
	for (unsigned i = 0; i < n; i++)
		if (in_prefix(&arr[i], family, addr))
			return true;
	return false;
}

static bool any_port(const struct mpt_port_range *arr, unsigned n, bool have, uint16_t port)
{
	if (!n)
		return true;
	if (!have)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (port >= arr[i].lo && port <= arr[i].hi)
			return true;
	return false;
}

bool mpt_rule_match(const struct mpt_rule *r, const struct mpt_flow_key *k, bool reversed)
{
	const uint8_t *dst = reversed ? k->src : k->dst, *src = reversed ? k->dst : k->src;
	uint16_t dport = reversed ? k->sport : k->dport, sport = reversed ? k->dport : k->sport;

	if (r->proto != MPT_RULE_PROTO_ANY && r->proto != k->proto &&
	    !(r->proto == MPT_RULE_PROTO_ICMP && (k->proto == 1 || k->proto == 58)))
		return false;
	if (r->dscp && !(r->dscp >> (k->dscp & 63) & 1))
		return false;
	return any_port(r->dport, r->ndport, k->ports, dport) &&
	       any_port(r->sport, r->nsport, k->ports, sport) &&
	       any_prefix(r->dst, r->ndst, k->family, dst) &&
	       any_prefix(r->src, r->nsrc, k->family, src);
}
