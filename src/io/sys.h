/* SPDX-License-Identifier: MIT */
/* Process-level helpers: systemd notification, privilege drop, the monotonic clock. */
#ifndef MPTUND_SYS_H
#define MPTUND_SYS_H

#include <stdint.h>
#include <time.h>

/* Monotonic clock in ns: the only clock the data path reads (main.c / the loop). */
static inline uint64_t mpt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* sd_notify(3) without libsystemd: a datagram to $NOTIFY_SOCKET. No-op outside
 * systemd. Returns 0, or -errno. */
int mpt_sd_notify(const char *state);
int mpt_sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Drop root to user (and group, default the user's primary group), keeping only
 * CAP_NET_ADMIN (route changes, reload) and CAP_NET_BIND_SERVICE/CAP_NET_RAW (new path
 * sockets bound to devices on reload) in the permitted and effective sets. user ""
 * means stay as we are. Returns 0 or -errno with a message in err.
 */
int mpt_drop_privileges(const char *user, const char *group, char *err, size_t errlen);

/* Fill buf with len bytes from getrandom(2). */
int mpt_random_bytes(void *buf, size_t len);

#endif
