// SPDX-License-Identifier: MIT
/* systemd notification, privilege drop and random bytes; see sys.h. */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "sys.h"

int mpt_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t slen;
	int fd, ret = 0;

	if (!path || !*path)
		return 0;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path));
	if (sun.sun_path[0] == '@')
		sun.sun_path[0] = '\0';		/* abstract namespace */
	slen = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sun, slen) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int mpt_sd_notifyf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return mpt_sd_notify(buf);
}

/*
 * After set-up only CAP_NET_ADMIN is left: routes and addresses on reload, the TUN.
 * Path sockets made later (a link that comes back) bind to their device without
 * CAP_NET_RAW (Linux 5.7 and later allow SO_BINDTODEVICE on an unbound socket), and
 * their ports are ephemeral or were bound at start.
 */
static int keep_net_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };
	uint32_t keep = 1u << CAP_NET_ADMIN;

	data[0].permitted = keep;
	data[0].effective = keep;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 0;
}

int mpt_drop_privileges(const char *user, const char *group, char *err, size_t errlen)
{
	struct passwd *pw;
	struct group *gr;
	gid_t gid;
	int ret;

	if (!user || !*user)
		goto no_new_privs;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(err, errlen, "User: '%s' does not exist", user);
		return -ENOENT;
	}
	gid = pw->pw_gid;
	if (group && *group) {
		gr = getgrnam(group);
		if (!gr) {
			snprintf(err, errlen, "Group: '%s' does not exist", group);
			return -ENOENT;
		}
		gid = gr->gr_gid;
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(1, &gid) < 0 ||
	    setresgid(gid, gid, gid) < 0 || setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) {
		ret = -errno;
		snprintf(err, errlen, "dropping privileges to '%s': %s", user, strerror(errno));
		return ret;
	}
	ret = keep_net_caps();
	if (ret < 0) {
		snprintf(err, errlen, "keeping network capabilities: %s", strerror(-ret));
		return ret;
	}
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
no_new_privs:
	/* nothing this process executes can gain privileges (set-uid, file caps) */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		ret = -errno;
		snprintf(err, errlen, "PR_SET_NO_NEW_PRIVS: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

int mpt_random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
