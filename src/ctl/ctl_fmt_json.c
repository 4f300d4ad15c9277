// SPDX-License-Identifier: MIT
/*
 * JSON backend of mptund-ctl. The flat keys are split at '.' into a tree; a node whose
 * children are exactly 0..n-1 becomes an array, others objects; leaf values that are
 * numbers in JSON syntax are written as numbers, all else as strings. A key that is
 * both a value and a prefix of other keys keeps its value under "_value".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_fmt.h"

struct jnode {
	char *name;
	const char *val;
	struct jnode **kids;
	size_t nkids, cap;
};

static struct jnode *child(struct jnode *n, const char *name, size_t len)
{
	struct jnode *k, **kids;

	for (size_t i = n->nkids; i-- > 0;)	/* recent first: keys come grouped */
		if (!strncmp(n->kids[i]->name, name, len) && !n->kids[i]->name[len])
			return n->kids[i];
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 8;

		kids = realloc(n->kids, cap * sizeof(*kids));
		if (!kids)
			return NULL;
		n->kids = kids;
		n->cap = cap;
	}
	k = calloc(1, sizeof(*k));
	if (!k || !(k->name = strndup(name, len))) {
		free(k);
		return NULL;
	}
	n->kids[n->nkids++] = k;
	return k;
}

static int insert(struct jnode *root, const char *key, const char *val)
{
	struct jnode *n = root;

	for (const char *p = key;;) {
		size_t len = strcspn(p, ".");

		n = child(n, p, len);
		if (!n)
			return -ENOMEM;
		if (!p[len])
			break;
		p += len + 1;
	}
	n->val = val;
	return 0;
}

static void tree_free(struct jnode *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		tree_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static bool is_array(const struct jnode *n)
{
	char idx[24];

	if (!n->nkids || n->val)
		return false;
	for (size_t i = 0; i < n->nkids; i++) {
		snprintf(idx, sizeof(idx), "%zu", i);
		if (strcmp(n->kids[i]->name, idx))
			return false;
	}
	return true;
}

static void put_node(FILE *f, const struct jnode *n);

static void put_members(FILE *f, const struct jnode *n, bool comma)
{
	if (n->val) {
		fputs(comma ? ",\"_value\":" : "\"_value\":", f);
		put_node(f, &(struct jnode){ .val = n->val });
		comma = true;
	}
	for (size_t i = 0; i < n->nkids; i++) {
		if (comma)
			fputc(',', f);
		comma = true;
		put_string(f, n->kids[i]->name);
		fputc(':', f);
		put_node(f, n->kids[i]);
	}
}

static void put_node(FILE *f, const struct jnode *n)
{
	if (!n->nkids) {
		if (ctl_is_number(n->val))
			fputs(n->val, f);
		else
			put_string(f, n->val);
	} else if (is_array(n)) {
		fputc('[', f);
		for (size_t i = 0; i < n->nkids; i++) {
			if (i)
				fputc(',', f);
			put_node(f, n->kids[i]);
		}
		fputc(']', f);
	} else {
		fputc('{', f);
		put_members(f, n, false);
		fputc('}', f);
	}
}

static struct jnode *build(const struct ctl_kvl *kv)
{
	struct jnode *root = calloc(1, sizeof(*root));

	if (!root)
		return NULL;
	for (size_t i = 0; i < kv->n; i++)
		if (insert(root, kv->v[i].key, kv->v[i].val)) {
			tree_free(root);
			return NULL;
		}
	return root;
}

static int json_dump(FILE *f, const struct ctl_kvl *kv)
{
	struct jnode *root = build(kv);

	if (!root)
		return -ENOMEM;
	fputc('{', f);
	put_members(f, root, false);
	fputs("}\n", f);
	tree_free(root);
	return ferror(f) ? -EIO : 0;
}

static int json_sample(FILE *f, const struct ctl_kvl *kv, double time_ms)
{
	struct jnode *root = build(kv);

	if (!root)
		return -ENOMEM;
	fprintf(f, "{\"time_ms\":%.0f", time_ms);
	put_members(f, root, true);
	fputs("}\n", f);
	fflush(f);
	tree_free(root);
	return ferror(f) ? -EIO : 0;
}

const struct ctl_backend ctl_backend_json = {
	.name = "json",
	.dump = json_dump,
	.sample = json_sample,
};
