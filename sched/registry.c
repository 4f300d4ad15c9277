// SPDX-License-Identifier: MIT
/* The static table of schedulers, looked up by name. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <mptund/sched.h>

#include "sched_modules.h"

static const struct mpt_sched_ops *const schedulers[] = {
	&mpt_sched_rr,
	&mpt_sched_cpf,
	&mpt_sched_acpf,
	&mpt_sched_minrtt,
	&mpt_sched_wrr,
	&mpt_sched_egreedy,
	&mpt_sched_exp3,
	&mpt_sched_olms,
	&mpt_sched_blest,
	&mpt_sched_minload,
	&mpt_sched_attr,
	&mpt_sched_active_standby,	/* ATSSS steering modes (issue 13) */
	&mpt_sched_smallest_delay,
	&mpt_sched_load_balance,
	&mpt_sched_priority,
	&mpt_sched_redundant,
};

static const char *const path_tags[MPT_PATH_TAG_COUNT] = {
	"metered", "high_cost", "cellular", "satellite",	/* enum mpt_path_tag */
};

const char *mpt_path_tag_name(unsigned bit)
{
	return bit < MPT_PATH_TAG_COUNT ? path_tags[bit] : NULL;
}

int mpt_path_tags_parse(const char *s, uint32_t *tags, const char **bad)
{
	uint32_t t = 0;

	while (*s) {
		size_t n = strcspn(s, " \t,");
		unsigned b;

		if (n == 0) {
			s++;
			continue;
		}
		for (b = 0; b < MPT_PATH_TAG_COUNT; b++)
			if (strlen(path_tags[b]) == n && !strncasecmp(s, path_tags[b], n))
				break;
		if (b == MPT_PATH_TAG_COUNT) {
			*bad = s;
			return -EINVAL;
		}
		t |= 1u << b;
		s += n;
	}
	*tags = t;
	return 0;
}

void mpt_path_tags_format(uint32_t tags, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned b = 0; b < MPT_PATH_TAG_COUNT && off < len; b++)
		if (tags & (1u << b))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "",
						path_tags[b]);
}

size_t mpt_sched_count(void)
{
	return MPT_ARRAY_SIZE(schedulers);
}

const struct mpt_sched_ops *mpt_sched_at(size_t i)
{
	return i < MPT_ARRAY_SIZE(schedulers) ? schedulers[i] : NULL;
}

const struct mpt_sched_ops *mpt_sched_find(const char *name)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(schedulers); i++)
		if (strcasecmp(schedulers[i]->name, name) == 0)
			return schedulers[i];
	return NULL;
}

int mpt_sched_registry_check(char *err, size_t errlen)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(schedulers); i++) {
		const struct mpt_sched_ops *s = schedulers[i];

		if (!s->name || !s->pick || !s->init) {
			snprintf(err, errlen, "scheduler #%zu '%s': missing a required member",
				 i, s->name ? s->name : "?");
			return -EINVAL;
		}
		if (s->priv_size > MPT_SCHED_PRIV_SIZE) {
			snprintf(err, errlen, "scheduler '%s': private size %zu exceeds %d",
				 s->name, s->priv_size, MPT_SCHED_PRIV_SIZE);
			return -EINVAL;
		}
		if (s->tick && !s->tick_ns) {
			snprintf(err, errlen, "scheduler '%s': tick without tick_ns", s->name);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcasecmp(schedulers[j]->name, s->name) == 0) {
				snprintf(err, errlen, "scheduler name '%s' registered twice",
					 s->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

void mpt_sched_prepare(void *priv, const struct mpt_sched_ops *ops)
{
	memset(priv, 0, ops->priv_size);
	mpt_param_defaults(ops->params, ops->nparams, priv);
}
