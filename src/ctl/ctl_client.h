/* SPDX-License-Identifier: MIT */
/*
 * mptund-ctl's side of the control socket: find the instance's socket, connect, send a
 * request, read replies (one, or a stream of them for watch).
 */
#ifndef MPTUND_CTL_CLIENT_H
#define MPTUND_CTL_CLIENT_H

#include <stddef.h>

#include "ctl_kv.h"

struct ctl_conn {
	int fd;
	char *buf;
	size_t len, cap;
};

/*
 * Socket path from -s PATH, else -i NAME (DIR/NAME.sock), else the only *.sock in DIR.
 * DIR is $MPTUND_RUN_DIR or /run/mptund. Returns 0, -EINVAL (bad name, or several
 * instances: a usage error) or -ENOENT (no instance); err says which.
 */
int ctl_socket_path(const char *sock, const char *inst, char *out, size_t len,
		    char *err, size_t errlen);

int ctl_conn_open(struct ctl_conn *c, const char *path, char *err, size_t errlen);
void ctl_conn_close(struct ctl_conn *c);

/* Send cmd=CMD and the "key=value" strings of kv (n of them), then the blank line. */
int ctl_conn_send(struct ctl_conn *c, const char *cmd, const char *const *kv, size_t n);

/*
 * Read one reply into l. Returns 0 with *err_no (0 = success) and msg, -ECONNRESET if
 * the daemon closed first, -EPROTO on a malformed reply, or -errno.
 */
int ctl_conn_recv(struct ctl_conn *c, struct ctl_kvl *l, int *err_no, char *msg,
		  size_t msglen);

#endif
