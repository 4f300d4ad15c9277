// SPDX-License-Identifier: MIT
/* Receiver index -> session: idxmap.h. */
#include <errno.h>
#include <stdlib.h>

#include "idxmap.h"

static uint32_t bucket(const struct mpt_idxmap *m, uint32_t key)
{
	return (uint32_t)((key * 0x9e3779b1u) >> 7) & m->mask;	/* keys are random */
}

int mpt_idxmap_init(struct mpt_idxmap *m, unsigned max)
{
	uint32_t buckets = 16;

	while (buckets < 2u * max)
		buckets <<= 1;
	m->key = calloc(buckets, sizeof(*m->key));
	m->val = calloc(buckets, sizeof(*m->val));
	if (!m->key || !m->val) {
		mpt_idxmap_free(m);
		return -ENOMEM;
	}
	m->mask = buckets - 1;
	m->n = 0;
	m->max = max;
	return 0;
}

void mpt_idxmap_free(struct mpt_idxmap *m)
{
	free(m->key);
	free(m->val);
	m->key = m->val = NULL;
	m->n = m->max = 0;
	m->mask = 0;
}

int mpt_idxmap_insert(struct mpt_idxmap *m, uint32_t key, uint32_t val)
{
	uint32_t i;

	if (!key)
		return -EINVAL;
	if (!m->key || m->n >= m->max)
		return -ENOSPC;
	for (i = bucket(m, key); m->key[i]; i = (i + 1) & m->mask)
		if (m->key[i] == key)
			return -EEXIST;
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return 0;
}

bool mpt_idxmap_find(const struct mpt_idxmap *m, uint32_t key, uint32_t *val)
{
	if (!key || !m->key)
		return false;
	for (uint32_t i = bucket(m, key); m->key[i]; i = (i + 1) & m->mask) {
		if (m->key[i] == key) {
			*val = m->val[i];
			return true;
		}
	}
	return false;
}

int mpt_idxmap_remove(struct mpt_idxmap *m, uint32_t key)
{
	uint32_t i, j;

	if (!key || !m->key)
		return -ENOENT;
	for (i = bucket(m, key); m->key[i] != key; i = (i + 1) & m->mask)
		if (!m->key[i])
			return -ENOENT;
	/* backward shift: move up every later entry of the run that may sit at i */
	for (j = (i + 1) & m->mask; m->key[j]; j = (j + 1) & m->mask) {
		uint32_t home = bucket(m, m->key[j]);

		/* j's entry may move to i if its home is not in (i, j] (cyclically) */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->key[i] = 0;
	m->val[i] = 0;
	m->n--;
	return 0;
}
