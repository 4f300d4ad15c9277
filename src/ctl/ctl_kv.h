/* SPDX-License-Identifier: MIT */
/*
 * mptund-ctl's view of a reply: an ordered list of key=value pairs, as the daemon sent
 * them (see include/mptund/ctl.h), plus the reply parser. The output backends
 * (ctl_fmt.h) work on this list only.
 */
#ifndef MPTUND_CTL_KV_H
#define MPTUND_CTL_KV_H

#include <stdbool.h>
#include <stddef.h>

struct ctl_kv {
	char *key;
	char *val;
};

struct ctl_kvl {
	struct ctl_kv *v;
	size_t n, cap;
};

void ctl_kvl_free(struct ctl_kvl *l);
int ctl_kvl_add(struct ctl_kvl *l, const char *key, const char *val);
/* Add a "key=value" line (split at the first '='). -EINVAL without '='. */
int ctl_kvl_add_line(struct ctl_kvl *l, const char *line);
const char *ctl_kvl_get(const struct ctl_kvl *l, const char *key);
/* printf-style key lookup: ctl_kvl_getf(l, "session.%u.peer", s). */
const char *ctl_kvl_getf(const struct ctl_kvl *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Number of consecutive indices i for which "PREFIX.i." keys exist (from 0). */
unsigned ctl_kvl_count(const struct ctl_kvl *l, const char *prefix);

/* True if s is a number in JSON syntax (so also a valid Prometheus sample value). */
bool ctl_is_number(const char *s);

/*
 * Parse one reply from text[0..len): "version=N", key=value lines, "errno=N", a blank
 * line. Fills l (without version/errno/message), *err_no and msg. Returns bytes used,
 * 0 if incomplete, -EPROTO if the text is not a reply.
 */
long ctl_reply_parse(const char *text, size_t len, struct ctl_kvl *l, int *err_no,
		     char *msg, size_t msglen);
/* True when s is one or more decimal digits and nothing else (a path index, a port). */
bool ctl_is_digits(const char *s);

#endif
