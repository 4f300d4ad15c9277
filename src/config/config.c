// SPDX-License-Identifier: MIT
/*
 * mptund.conf(5) parser: WireGuard-style INI into struct mpt_config.
 *
 * Line by line: "[Section]", "Key = value", comments from '#' or ';' (at the start of a
 * line, after white space or right after '='), blank lines. Keys and section names are case-insensitive.
 * Every key is described once in the tables of config_keys.c; the same tables drive mpt_config_print() and are checked against the man page by a unit test.
 * Per-key checks run as each line is read; checks that need the whole section run when
 * the section closes, and checks across sections (role-dependent requirements,
 * overlaps, duplicates) run at the end. The first error wins and is reported as
 * "FILE:LINE: Key: message" quoting the offending value.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config_int.h"
#include "log.h"
#include "rule.h"

/* A tunable of the section's module; validated when the section closes. */
static int add_override(struct cfg_parser *ps, const char *key, const char *value)
{
	struct mpt_config *cfg = ps->cfg;
	bool sched = ps->sec == SEC_SCHEDULER;
	struct mpt_override *o = sched ? cfg->sched_params : cfg->cc_params;
	unsigned *n = sched ? &cfg->nsched_params : &cfg->ncc_params;

	for (unsigned i = 0; i < *n; i++)
		if (strcasecmp(o[i].name, key) == 0)
			return cfg_fail(ps, key, "set twice in this section (first on line %d)",
				    o[i].line);
	if (strlen(key) >= sizeof(o->name))
		return cfg_fail(ps, key, "unknown key in [%s]",
			    mpt_cfg_sections[ps->sec].name);
	if (strlen(value) >= sizeof(o->value))
		return cfg_fail(ps, key, "'%s' is too long (max %zu characters)", value,
			    sizeof(o->value) - 1);
	if (*n >= MPT_MAX_OVERRIDES)
		return cfg_fail(ps, key, "too many tunables (max %d)", MPT_MAX_OVERRIDES);
	strcpy(o[*n].name, key);
	strcpy(o[*n].value, value);
	o[*n].line = ps->line;
	(*n)++;
	return 0;
}

/* Check overrides against the module's table; names take the table's spelling. */
static int check_overrides(struct cfg_parser *ps, bool sched)
{
	struct mpt_config *cfg = ps->cfg;
	struct mpt_override *o = sched ? cfg->sched_params : cfg->cc_params;
	unsigned n = sched ? cfg->nsched_params : cfg->ncc_params;
	const struct mpt_param *tab;
	size_t ntab;
	union {
		max_align_t align;
		unsigned char b[MPT_SCHED_PRIV_SIZE];
	} blob;
	char msg[256];

	if (sched) {
		const struct mpt_sched_ops *ops = mpt_sched_find(cfg->sched);

		tab = ops ? ops->params : NULL;
		ntab = ops ? ops->nparams : 0;
	} else {
		const struct mpt_cc_ops *ops = mpt_cc_find(cfg->cc);

		tab = ops ? ops->params : NULL;
		ntab = ops ? ops->nparams : 0;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct mpt_param *p = mpt_param_find(tab, ntab, o[i].name);
		size_t used = 0;

		if (!p) {
			msg[0] = '\0';
			for (size_t j = 0; j < ntab && used < sizeof(msg); j++) {
				int w = snprintf(msg + used, sizeof(msg) - used, "%s%s",
						 j ? ", " : "", tab[j].name);
				used += w > 0 ? (size_t)w : 0;
			}
			return cfg_failat(ps, o[i].line, o[i].name, "unknown key in [%s] "
				      "(tunables of %s: %s)",
				      sched ? "Scheduler" : "Congestion",
				      sched ? cfg->sched : cfg->cc, ntab ? msg : "none");
		}
		if (p->offset >= sizeof(blob))
			return cfg_failat(ps, o[i].line, NULL, "%s: internal error", p->name);
		if (mpt_param_parse(p, blob.b, o[i].value, msg, sizeof(msg)) < 0)
			return cfg_failat(ps, o[i].line, NULL, "%s", msg);
		snprintf(o[i].name, sizeof(o[i].name), "%s", p->name);
	}
	return 0;
}

static void *section_base(struct cfg_parser *ps)
{
	struct mpt_config *cfg = ps->cfg;

	if (ps->sec == SEC_PATH)
		return &cfg->paths[cfg->npaths - 1];
	if (ps->sec == SEC_PEER)
		return &cfg->peers[cfg->npeers - 1];
	if (ps->sec == SEC_RULE)
		return &cfg->rules[cfg->nrules - 1];
	return cfg;
}

static int seen_key(struct cfg_parser *ps, const char *name)
{
	const struct cfg_section_desc *d = &mpt_cfg_sections[ps->sec];

	for (size_t i = 0; i < d->nkeys; i++)
		if (strcmp(d->keys[i].name, name) == 0)
			return ps->seen[i];
	return 0;
}

/* A [Rule] is complete (rule.h); its name is unique. */
static int close_rule(struct cfg_parser *ps)
{
	struct mpt_config *cfg = ps->cfg;
	struct mpt_rule *r = section_base(ps);
	char msg[256];
	int line;

	if (mpt_rule_check(r, &line, msg, sizeof(msg)) < 0)
		return line ? cfg_failat(ps, line, NULL, "%s", msg)
			    : cfg_failat(ps, ps->sec_line, NULL, "[Rule]: %s", msg);
	for (unsigned i = 0; i + 1 < cfg->nrules; i++)
		if (strcmp(cfg->rules[i].name, r->name) == 0)
			return cfg_failat(ps, ps->sec_line, "Name", "'%s': a rule of that name "
					  "is on line %d", r->name, cfg->rules[i].line);
	return 0;
}

/* Open a repeated section of elements of size sz in *arr (grown by doubling). */
static void *grow(struct cfg_parser *ps, void **arr, unsigned *n, unsigned *cap, size_t sz,
		  unsigned max, const char *what)
{
	if (*n >= max) {
		cfg_fail(ps, NULL, "[%s]: too many (max %u)", what, max);
		return NULL;
	}
	if (*n == *cap) {
		unsigned nc = *cap ? 2 * *cap : 4;
		void *np = realloc(*arr, nc * sz);

		if (!np) {
			cfg_fail(ps, NULL, "[%s]: out of memory", what);
			return NULL;
		}
		*arr = np;
		*cap = nc;
	}
	return (char *)*arr + (*n)++ * sz;
}

static int close_section(struct cfg_parser *ps)
{
	struct mpt_config *cfg = ps->cfg;

	switch (ps->sec) {
	case SEC_INTERFACE:
		memcpy(ps->iface_seen, ps->seen, sizeof(ps->seen));
		break;
	case SEC_SCHEDULER:
	case SEC_CONGESTION:
		return check_overrides(ps, ps->sec == SEC_SCHEDULER);
	case SEC_PATH: {
		struct mpt_path_config *p = section_base(ps);

		if (!seen_key(ps, "Name"))
			snprintf(p->name, sizeof(p->name), "path%u", cfg->npaths - 1);
		if (!seen_key(ps, "Cost"))
			p->cost = cfg->npaths - 1;
		break;
	}
	case SEC_PEER: {
		struct mpt_peer_config *p = section_base(ps);

		if (!seen_key(ps, "PublicKey"))
			return cfg_failat(ps, ps->sec_line, "PublicKey", "missing in [Peer]");
		if (!seen_key(ps, "Name"))
			snprintf(p->name, sizeof(p->name), "peer%u", cfg->npeers - 1);
		break;
	}
	case SEC_RULE:
		return close_rule(ps);
	default:
		break;
	}
	return 0;
}

static int open_section(struct cfg_parser *ps, const char *name)
{
	struct mpt_config *cfg = ps->cfg;
	enum cfg_section s;

	for (s = SEC_INTERFACE; s < SEC_MAX; s++)
		if (strcasecmp(mpt_cfg_sections[s].name, name) == 0)
			break;
	if (s == SEC_MAX)
		return cfg_fail(ps, NULL, "[%s]: unknown section (Interface, Scheduler, "
			    "Congestion, Path, Peer, Rule)", name);
	if (close_section(ps) < 0)
		return -EINVAL;
	ps->sec = s;
	ps->sec_line = ps->line;
	memset(ps->seen, 0, sizeof(ps->seen));
	if (s == SEC_PATH) {
		if (cfg->npaths >= MPT_MAX_PATHS)
			return cfg_fail(ps, NULL, "[Path]: too many paths (max %d)", MPT_MAX_PATHS);
		memset(&cfg->paths[cfg->npaths], 0, sizeof(cfg->paths[0]));
		cfg->paths[cfg->npaths++].line = ps->line;
	} else if (s == SEC_PEER) {
		if (cfg->npeers >= MPT_MAX_PEERS)
			return cfg_fail(ps, NULL, "[Peer]: too many peers (max %d)", MPT_MAX_PEERS);
		if (cfg->npeers == ps->peer_cap) {
			unsigned cap = ps->peer_cap ? 2 * ps->peer_cap : 4;
			void *np = realloc(cfg->peers, cap * sizeof(*cfg->peers));

			if (!np)
				return cfg_fail(ps, NULL, "[Peer]: out of memory");
			cfg->peers = np;
			ps->peer_cap = cap;
		}
		memset(&cfg->peers[cfg->npeers], 0, sizeof(cfg->peers[0]));
		cfg->peers[cfg->npeers++].line = ps->line;
	} else if (s == SEC_RULE) {
		struct mpt_rule *r = grow(ps, (void **)&cfg->rules, &cfg->nrules,
					  &ps->rule_cap, sizeof(*r), MPT_MAX_RULES, "Rule");

		if (!r)
			return -EINVAL;
		mpt_rule_init(r);
		r->line = ps->line;
	} else if (ps->sec_first[s]) {
		return cfg_fail(ps, NULL, "[%s]: duplicate section (first on line %d)",
			    mpt_cfg_sections[s].name, ps->sec_first[s]);
	} else {
		ps->sec_first[s] = ps->line;
	}
	return 0;
}

static int key_line(struct cfg_parser *ps, char *key, char *value)
{
	const struct cfg_section_desc *d = &mpt_cfg_sections[ps->sec];

	if (ps->sec == SEC_NONE)
		return cfg_fail(ps, key, "key outside of a section");
	if (ps->sec == SEC_RULE) {
		char msg[256];

		struct mpt_rule *r = section_base(ps);
		unsigned np = r->nparams;

		if (mpt_rule_set(r, key, value, msg, sizeof(msg)) < 0)
			return cfg_fail(ps, NULL, "%s", msg);
		if (r->nparams > np)
			r->params[np].line = ps->line;	/* a tunable: checked at the end */
		return 0;
	}
	for (size_t i = 0; i < d->nkeys; i++) {
		const struct cfg_key *k = &d->keys[i];
		bool list = k->type == T_PREFIXES || k->type == T_ROUTES;

		if (strcasecmp(k->name, key) != 0)
			continue;
		if (ps->seen[i] && !list)
			return cfg_fail(ps, k->name, "set twice in this section (first on line %d)",
				    ps->seen[i]);
		ps->seen[i] = ps->line;
		return cfg_set_value(ps, k, section_base(ps), value);
	}
	if (d->overrides)
		return add_override(ps, key, value);
	return cfg_fail(ps, key, "unknown key in [%s]", d->name);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); )
		*--e = '\0';
	return s;
}

static int parse_line(struct cfg_parser *ps, const char *text, size_t len)
{
	char buf[MPT_MAX_LINE], *s, *eq;

	if (len >= sizeof(buf))
		return cfg_fail(ps, NULL, "line too long (max %d characters)", MPT_MAX_LINE - 1);
	if (memchr(text, '\0', len))
		return cfg_fail(ps, NULL, "NUL byte in line");
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (s = buf; *s; s++) {
		/* also right after '=': "Key =#x" must not keep '#x' as its value,
		 * or the printed "Key = #x" would read back as a comment */
		if ((*s == '#' || *s == ';') &&
		    (s == buf || s[-1] == ' ' || s[-1] == '\t' || s[-1] == '=')) {
			*s = '\0';
			break;
		}
	}
	s = trim(buf);
	if (!*s)
		return 0;
	if (*s == '[') {
		size_t n = strlen(s);

		if (s[n - 1] != ']')
			return cfg_fail(ps, NULL, "'%s': malformed section header", s);
		s[n - 1] = '\0';
		return open_section(ps, trim(s + 1));
	}
	eq = strchr(s, '=');
	if (!eq)
		return cfg_fail(ps, NULL, "'%s': expected Key = value", s);
	*eq = '\0';
	s = trim(s);
	if (!*s)
		return cfg_fail(ps, NULL, "'= %s': missing key name", trim(eq + 1));
	if (!*trim(eq + 1))
		return cfg_fail(ps, s, "empty value");
	return key_line(ps, s, trim(eq + 1));
}

static void set_defaults(struct mpt_config *cfg)
{
	snprintf(cfg->tun_name, sizeof(cfg->tun_name), "mpt0");
	cfg->outer_mtu = 1500;
	cfg->cipher = MPT_CIPHER_CHACHA20_POLY1305;
	cfg->recovery = MPT_RECOVERY_RETRANSMIT;
	cfg->clamp_mss = true;
	cfg->tun_offload = true;
	cfg->ack_routing = true;	/* issues 10, 22: mptund.conf(5) AckRouting */
	cfg->probe_interval_ns = 200 * MPT_NSEC_PER_MSEC;
	cfg->probe_miss_limit = 5;
	cfg->idle_probe_max_ns = 15 * MPT_NSEC_PER_SEC;
	cfg->queue_limit = 1024;
	cfg->sparse_flows = true;
	cfg->reorder_buffer = 1024;
	cfg->reorder_max_hold_ns = 250 * MPT_NSEC_PER_MSEC;
	cfg->reorder_margin_ns = 5 * MPT_NSEC_PER_MSEC;
	cfg->rekey_after_ns = 120 * MPT_NSEC_PER_SEC;
	cfg->rekey_after_packets = MPT_REKEY_PACKETS_DEFAULT;
	cfg->log_level = LOG_INFO;
	snprintf(cfg->sched, sizeof(cfg->sched), "cpf");
	snprintf(cfg->cc, sizeof(cfg->cc), "bbr");
}

/* Instance name: the file's base name without ".conf"; its length in *n. */
static const char *instance_name(const struct mpt_config *cfg, size_t *n)
{
	const char *base = strrchr(cfg->file, '/');

	base = base ? base + 1 : cfg->file;
	*n = strlen(base);
	if (*n > 5 && strcmp(base + *n - 5, ".conf") == 0)
		*n -= 5;
	return base;
}

static void default_ctl_path(struct mpt_config *cfg)
{
	size_t n;
	const char *base = instance_name(cfg, &n);

	snprintf(cfg->ctl_path, sizeof(cfg->ctl_path), "/run/mptund/%.*s.sock", (int)n,
		 base);
}

/* The same instance name under the systemd StateDirectory=mptund. */
static void default_state_file(struct mpt_config *cfg)
{
	size_t n;
	const char *base = instance_name(cfg, &n);

	snprintf(cfg->state_file, sizeof(cfg->state_file), "/var/lib/mptund/%.*s.state",
		 (int)MPT_MIN(n, 64), base);
}

/* Line where key of [Interface] was set, 0 when it was not. */
static int iface_key_line(const struct cfg_parser *ps, const char *name)
{
	const struct cfg_section_desc *d = &mpt_cfg_sections[SEC_INTERFACE];

	for (size_t i = 0; i < d->nkeys; i++)
		if (strcmp(d->keys[i].name, name) == 0)
			return ps->iface_seen[i];
	return 0;
}

/* A rule's Peer= names a [Peer] of the anchor; the UE takes no Peer=. */
static int check_rule_peers(struct cfg_parser *ps)
{
	const struct mpt_config *cfg = ps->cfg;

	for (unsigned i = 0; i < cfg->nrules; i++) {
		const struct mpt_rule *r = &cfg->rules[i];
		bool found = false;

		if (!r->peer[0])
			continue;
		if (cfg->role == MPT_ROLE_UE)
			return cfg_failat(ps, r->line, "Peer", "'%s': only the anchor's rules "
					  "name a peer", r->peer);
		for (unsigned k = 0; k < cfg->npeers && !found; k++)
			found = strcmp(cfg->peers[k].name, r->peer) == 0;
		if (!found)
			return cfg_failat(ps, r->line, "Peer", "'%s' is not the Name of a "
					  "[Peer]", r->peer);
	}
	return 0;
}

int mpt_config_parse(struct mpt_config *cfg, const char *file, const char *text,
		     size_t len, char *err, size_t errlen)
{
	struct cfg_parser ps = { .cfg = cfg, .err = err, .errlen = errlen };
	struct cfg_lines lines;
	size_t pos = 0;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->file, sizeof(cfg->file), "%s", file ? file : "-");
	if (errlen)
		err[0] = '\0';
	set_defaults(cfg);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		ps.line++;
		if (parse_line(&ps, text + pos, n) < 0)
			goto fail;
		pos += n + 1;
	}
	if (close_section(&ps) < 0)
		goto fail;
	if (!ps.sec_first[SEC_INTERFACE]) {
		cfg_failat(&ps, 0, NULL, "[Interface]: missing section");
		goto fail;
	}
	if (!iface_key_line(&ps, "ControlSocket"))
		default_ctl_path(cfg);
	if (!iface_key_line(&ps, "StateFile"))
		default_state_file(cfg);
	lines = (struct cfg_lines){
		.iface = ps.sec_first[SEC_INTERFACE],
		.role = iface_key_line(&ps, "Role"),
		.private_key = iface_key_line(&ps, "PrivateKey"),
		.mtu = iface_key_line(&ps, "MTU"),
		.outer_mtu = iface_key_line(&ps, "OuterMTU"),
		.listen_port = iface_key_line(&ps, "ListenPort"),
		.rekey_packets = iface_key_line(&ps, "RekeyAfterPackets"),
	};
	if (cfg_finish(cfg, &lines, err, errlen) < 0)
		goto fail;
	if (check_rule_peers(&ps) < 0)
		goto fail;
	return 0;
fail:
	mpt_config_free(cfg);
	return -EINVAL;
}

void mpt_config_free(struct mpt_config *cfg)
{
	free(cfg->peers);
	cfg->peers = NULL;
	cfg->npeers = 0;
	free(cfg->rules);
	cfg->rules = NULL;
	cfg->nrules = 0;
}

int mpt_config_load(struct mpt_config *cfg, const char *path, char *err, size_t errlen)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL;
	int fd, rc;

	memset(cfg, 0, sizeof(*cfg));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	for (;;) {
		ssize_t n;

		if (len == cap || !buf) {
			char *nb;

			if (buf)
				cap *= 2;
			if (cap > MPT_MAX_CONFIG_SIZE) {
				snprintf(err, errlen, "%s: larger than %d bytes", path,
					 MPT_MAX_CONFIG_SIZE);
				rc = -EFBIG;
				goto out;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				snprintf(err, errlen, "%s: %s", path, strerror(-rc));
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = mpt_config_parse(cfg, path, buf, len, err, errlen);
out:
	free(buf);
	close(fd);
	return rc;
}
