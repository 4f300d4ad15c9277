// SPDX-License-Identifier: MIT
/*
 * The normalised form of a parsed config (mptund --check), driven by the same key
 * tables as the parser: every key in table order, defaults filled in, canonical units,
 * keys in base64. Unset optional values and derived facts are printed as comments, so
 * the output parses back to the same struct. Also applies the [Scheduler] and
 * [Congestion] tunable overrides to a module's freshly prepared private blob.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config_int.h"
#include "rule.h"
#include "keys.h"
#include "log.h"

/* Every prefix of a list key on a line of its own. */
static void print_prefixes(const struct cfg_key *k, const void *base, FILE *out)
{
	const struct mpt_prefix *arr = (const void *)((const char *)base + k->off);
	unsigned n = *(const unsigned *)((const char *)base + k->count_off);
	char buf[256];

	for (unsigned i = 0; i < n; i++) {
		mpt_prefix_format(&arr[i], buf, sizeof(buf));
		fprintf(out, "%s = %s\n", k->name, buf);
	}
	if (n == 0)
		fprintf(out, "# %s = (none)\n", k->name);
}

/* A listen address (no port), a source (a port only when set), an endpoint. */
static void format_address(const struct cfg_key *k, const struct sockaddr_storage *ss,
			   char *buf, size_t len)
{
	switch (k->type) {
	case T_LISTENADDR:
		cfgv_ip_format(ss, buf, len);
		break;
	case T_SOURCE:
		if (ss->ss_family && ((const struct sockaddr_in *)ss)->sin_port == 0)
			cfgv_ip_format(ss, buf, len);
		else if (ss->ss_family)
			mpt_sockaddr_format(ss, buf, len);
		break;
	case T_ENDPOINT:
		if (ss->ss_family)
			mpt_sockaddr_format(ss, buf, len);
		break;
	default:
		break;
	}
}

static void print_value(const struct cfg_key *k, const void *base, FILE *out)
{
	const void *f = (const char *)base + k->off;
	char buf[256];

	buf[0] = '\0';
	switch (k->type) {
	case T_ROLE:
		snprintf(buf, sizeof(buf), "%s",
			 *(const enum mpt_role *)f == MPT_ROLE_UE ? "ue" : "anchor");
		break;
	case T_KEY:
		mpt_key_to_base64(buf, f);
		break;
	case T_IFNAME:
	case T_IDENT:
	case T_SOCKPATH:
	case T_SCHED:
	case T_CC:
		snprintf(buf, sizeof(buf), "%s", (const char *)f);
		break;
	case T_PREFIXES:
	case T_ROUTES:
		print_prefixes(k, base, out);
		return;
	case T_U32:
		snprintf(buf, sizeof(buf), "%u", *(const uint32_t *)f);
		break;
	case T_U64:
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)*(const uint64_t *)f);
		break;
	case T_PORT:
		snprintf(buf, sizeof(buf), "%u",
			 ntohs(((const struct sockaddr_in *)f)->sin_port));
		break;
	case T_MS:
	case T_SEC:
		cfgv_duration_format(*(const uint64_t *)f, buf, sizeof(buf));
		break;
	case T_RATE:
		cfgv_rate_format(*(const uint64_t *)f, buf, sizeof(buf));
		break;
	case T_LISTENADDR:
	case T_SOURCE:
	case T_ENDPOINT:
		format_address(k, f, buf, sizeof(buf));
		break;
	case T_BOOL:
		snprintf(buf, sizeof(buf), "%s", *(const bool *)f ? "true" : "false");
		break;
	case T_CIPHER:
		snprintf(buf, sizeof(buf), "%s", cfgv_cipher_name(*(const enum mpt_cipher *)f));
		break;
	case T_RECOVERY:
		snprintf(buf, sizeof(buf), "%s",
			 cfgv_recovery_name(*(const enum mpt_recovery_mode *)f));
		break;
	case T_LOGLEVEL:
		snprintf(buf, sizeof(buf), "%s", log_level_name(*(const int *)f));
		break;
	case T_BUDGET:
		mpt_budget_format(f, buf, sizeof(buf));
		break;
	case T_TAGS:
		mpt_path_tags_format(*(const uint32_t *)f, buf, sizeof(buf));
		break;
	case T_MTU:
		if (*(const uint32_t *)f)
			snprintf(buf, sizeof(buf), "%u", *(const uint32_t *)f);
		else
			snprintf(buf, sizeof(buf), "auto");
		break;
	}
	if (!buf[0])
		fprintf(out, "# %s = %s\n", k->name, k->unset ? k->unset : "(not set)");
	else
		fprintf(out, "%s = %s\n", k->name, buf);
}

static void print_section(enum cfg_section s, const void *base, FILE *out)
{
	const struct cfg_section_desc *d = &mpt_cfg_sections[s];

	fprintf(out, "\n[%s]\n", d->name);
	for (size_t i = 0; i < d->nkeys; i++)
		print_value(&d->keys[i], base, out);
}

/* Overrides as set, then the module's other tunables as comments with defaults. */
static void print_tunables(const struct mpt_param *tab, size_t n,
			   const struct mpt_override *o, unsigned no, FILE *out)
{
	char buf[64];

	for (unsigned i = 0; i < no; i++)
		fprintf(out, "%s = %s\n", o[i].name, o[i].value);
	for (size_t j = 0; j < n; j++) {
		bool set = false;

		for (unsigned i = 0; i < no; i++)
			set = set || strcasecmp(o[i].name, tab[j].name) == 0;
		if (set)
			continue;
		mpt_param_format_value(&tab[j], tab[j].def, buf, sizeof(buf));
		fprintf(out, "# %s = %s (default)\n", tab[j].name, buf);
	}
}

/* A [Rule]: its normalised spec, one key per line (rule.h). */
static void print_rule(const struct mpt_rule *r, FILE *out)
{
	char spec[MPT_RULE_SPEC_MAX];

	fprintf(out, "\n[Rule]\n");
	if (mpt_rule_format(r, spec, sizeof(spec)) < 0)
		return;
	for (char *save, *tok = strtok_r(spec, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq) {
			*eq = '\0';
			fprintf(out, "%s = %s\n", tok, eq + 1);
		}
	}
}

void mpt_config_print(const struct mpt_config *cfg, FILE *out)
{
	const struct mpt_sched_ops *sops = mpt_sched_find(cfg->sched);
	const struct mpt_cc_ops *cops = mpt_cc_find(cfg->cc);
	char pub[45];

	fprintf(out, "# %s, normalised by mptund --check\n", cfg->file);
	print_section(SEC_INTERFACE, cfg, out);
	mpt_key_to_base64(pub, cfg->public_key);
	fprintf(out, "# PublicKey = %s (derived from PrivateKey)\n", pub);
	if (!cfg->mtu)
		fprintf(out, "# MTU auto = %u (OuterMTU - %d)\n", mpt_config_inner_mtu(cfg),
			MPT_TUNNEL_OVERHEAD);

	print_section(SEC_SCHEDULER, cfg, out);
	print_tunables(sops ? sops->params : NULL, sops ? sops->nparams : 0,
		       cfg->sched_params, cfg->nsched_params, out);
	print_section(SEC_CONGESTION, cfg, out);
	print_tunables(cops ? cops->params : NULL, cops ? cops->nparams : 0,
		       cfg->cc_params, cfg->ncc_params, out);

	for (unsigned i = 0; i < cfg->npaths; i++)
		print_section(SEC_PATH, &cfg->paths[i], out);
	for (unsigned i = 0; i < cfg->npeers; i++)
		print_section(SEC_PEER, &cfg->peers[i], out);
	for (unsigned i = 0; i < cfg->nrules; i++)
		print_rule(&cfg->rules[i], out);
}

static int apply(const struct mpt_config *cfg, const struct mpt_param *tab, size_t n,
		 const struct mpt_override *o, unsigned no, void *priv, char *err,
		 size_t errlen)
{
	char msg[192];

	for (unsigned i = 0; i < no; i++) {
		const struct mpt_param *p = mpt_param_find(tab, n, o[i].name);

		if (!p) {
			snprintf(err, errlen, "%s:%d: %s: not a tunable of this module",
				 cfg->file, o[i].line, o[i].name);
			return -EINVAL;
		}
		if (mpt_param_parse(p, priv, o[i].value, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "%s:%d: %s", cfg->file, o[i].line, msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* The overrides belong to the module named in the config; another one keeps its
 * defaults (a path with its own CC, a scheduler switched at run time). */
int mpt_config_apply_sched(const struct mpt_config *cfg, const struct mpt_sched_ops *ops,
			   void *priv, char *err, size_t errlen)
{
	if (strcasecmp(ops->name, cfg->sched) != 0)
		return 0;
	return apply(cfg, ops->params, ops->nparams, cfg->sched_params, cfg->nsched_params,
		     priv, err, errlen);
}

int mpt_config_apply_cc(const struct mpt_config *cfg, const struct mpt_cc_ops *ops,
			void *priv, char *err, size_t errlen)
{
	if (strcasecmp(ops->name, cfg->cc) != 0)
		return 0;
	return apply(cfg, ops->params, ops->nparams, cfg->cc_params, cfg->ncc_params, priv,
		     err, errlen);
}

int mpt_config_check_main(const char *path, FILE *out, FILE *errout)
{
	struct mpt_config cfg;
	char err[512];

	if (mpt_config_load(&cfg, path, err, sizeof(err)) < 0) {
		fprintf(errout, "%s\n", err);
		return 1;
	}
	mpt_config_print(&cfg, out);
	mpt_config_free(&cfg);
	return 0;
}
