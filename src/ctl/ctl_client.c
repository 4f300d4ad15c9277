// SPDX-License-Identifier: MIT
/* mptund-ctl: socket discovery and request/reply I/O (see ctl_client.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <mptund/ctl.h>

#include "ctl_client.h"

static const char *run_dir(void)
{
	const char *d = getenv("MPTUND_RUN_DIR");

	return d && d[0] ? d : MPT_CTL_RUN_DIR;
}

int ctl_socket_path(const char *sock, const char *inst, char *out, size_t len,
		    char *err, size_t errlen)
{
	const char *dir = run_dir();
	char found[2][256];
	unsigned n = 0;
	struct dirent *de;
	DIR *d;

	if (sock) {
		snprintf(out, len, "%s", sock);
		return 0;
	}
	if (inst) {
		if (!inst[0] || strchr(inst, '/')) {
			snprintf(err, errlen, "'%s' is not an instance name", inst);
			return -EINVAL;
		}
		snprintf(out, len, "%s/%s.sock", dir, inst);
		return 0;
	}
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "no mptund instance: %s: %s", dir, strerror(errno));
		return -ENOENT;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".sock")) {
			if (n < 2)
				snprintf(found[n], sizeof(found[n]), "%.*s", (int)(l - 5), de->d_name);
			n++;
		}
	}
	closedir(d);
	if (n == 0) {
		snprintf(err, errlen, "no mptund instance: no *.sock under %s", dir);
		return -ENOENT;
	}
	if (n > 1) {
		snprintf(err, errlen, "%u instances under %s (%s, %s%s): choose one with -i NAME",
			 n, dir, found[0], found[1], n > 2 ? ", ..." : "");
		return -EINVAL;
	}
	snprintf(out, len, "%s/%s.sock", dir, found[0]);
	return 0;
}

int ctl_conn_open(struct ctl_conn *c, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "socket path '%s' is too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun))) {
		rc = -errno;
		snprintf(err, errlen, "cannot connect to '%s': %s", path, strerror(-rc));
		ctl_conn_close(c);
		return rc;
	}
	return 0;
}

void ctl_conn_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
	c->len = c->cap = 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ctl_conn_send(struct ctl_conn *c, const char *cmd, const char *const *kv, size_t n)
{
	char req[MPT_CTL_MAX_REQ];
	size_t len = 0;

	len += (size_t)snprintf(req, sizeof(req), "cmd=%s\n", cmd);
	for (size_t i = 0; i < n && len < sizeof(req); i++)
		len += (size_t)snprintf(req + len, sizeof(req) - len, "%s\n", kv[i]);
	if (len + 1 >= sizeof(req))
		return -E2BIG;
	req[len++] = '\n';
	return write_all(c->fd, req, len);
}

int ctl_conn_recv(struct ctl_conn *c, struct ctl_kvl *l, int *err_no, char *msg,
		  size_t msglen)
{
	for (;;) {
		struct ctl_kvl tmp = { 0 };
		long used = c->len ? ctl_reply_parse(c->buf, c->len, &tmp, err_no, msg, msglen) : 0;
		ssize_t n;

		if (used < 0) {
			ctl_kvl_free(&tmp);
			return (int)used;
		}
		if (used > 0) {
			ctl_kvl_free(l);
			*l = tmp;
			memmove(c->buf, c->buf + used, c->len - (size_t)used);
			c->len -= (size_t)used;
			return 0;
		}
		ctl_kvl_free(&tmp);
		if (c->cap - c->len < 65536) {
			size_t cap = c->cap ? 2 * c->cap : 131072;
			char *b = realloc(c->buf, cap);

			if (!b)
				return -ENOMEM;
			c->buf = b;
			c->cap = cap;
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		c->len += (size_t)n;
	}
}
