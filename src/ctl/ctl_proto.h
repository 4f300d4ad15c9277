/* SPDX-License-Identifier: MIT */
/*
 * Control-protocol requests: the command table (name, read/write permission, keys it
 * accepts) and the parser, a pure function over a byte buffer. Wire rules and the key
 * vocabulary are in include/mptund/ctl.h.
 */
#ifndef MPTUND_CTL_PROTO_H
#define MPTUND_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mptund/ctl.h>

enum mpt_ctl_cmd {
	MPT_CTL_CMD_STATS,
	MPT_CTL_CMD_WATCH,
	MPT_CTL_CMD_SCHED,
	MPT_CTL_CMD_SCHED_LIST,
	MPT_CTL_CMD_SET,
	MPT_CTL_CMD_PATH,
	MPT_CTL_CMD_RELOAD,
	MPT_CTL_CMD_RULE_LIST,
	MPT_CTL_CMD_RULE,
	MPT_CTL_CMD_MAX,
};

struct mpt_ctl_cmd_desc {
	const char *name;
	bool write;			/* needs the daemon's uid or root */
	const char *const *keys;	/* accepted keys, NULL-terminated; "p.*": prefix p. */
	const char *const *required;	/* keys that must be present, NULL-terminated */
};

extern const struct mpt_ctl_cmd_desc mpt_ctl_cmds[MPT_CTL_CMD_MAX];

struct mpt_ctl_kv {
	const char *key;
	const char *val;
};

struct mpt_ctl_req {
	enum mpt_ctl_cmd cmd;
	unsigned nkv;			/* keys after cmd= (version= not included) */
	struct mpt_ctl_kv kv[MPT_CTL_MAX_KEYS];
	char text[MPT_CTL_MAX_REQ];	/* the request's lines, NUL-terminated; kv point here */
};

/*
 * Parse one request at the start of buf[0..len).
 *   0		req is filled; *used = bytes of the request (blank line included).
 *   -EAGAIN	no complete request yet; read more (*used = 0).
 *   -EINVAL	malformed request; err says why, *used = bytes to skip.
 *   -E2BIG	a line or the request is too long, or too many keys; err says why.
 *   -EPROTONOSUPPORT  version=N other than MPT_CTL_VERSION.
 * On error with *used == 0 the stream cannot be resynchronised: reply, then close.
 */
int mpt_ctl_parse(const char *buf, size_t len, struct mpt_ctl_req *req, size_t *used,
		  char *err, size_t errlen);

/* Value of key in req, or NULL. */
const char *mpt_ctl_req_get(const struct mpt_ctl_req *req, const char *key);

/*
 * Parse key as an unsigned decimal in [min, max]; absent: *v = def, 0. Returns 0 or
 * -EINVAL with err quoting the value ("session: 'x' is not a number in [0, 7]").
 */
int mpt_ctl_req_u32(const struct mpt_ctl_req *req, const char *key, uint32_t def,
		    uint32_t min, uint32_t max, uint32_t *v, char *err, size_t errlen);

/* Copy s into buf for quoting in a message: at most 48 chars, non-printables '?'. */
const char *mpt_ctl_quote(const char *s, size_t n, char *buf, size_t len);

#endif
