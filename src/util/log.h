/* SPDX-License-Identifier: MIT */
/*
 * Logging to stderr (the journal under systemd), OpenBSD style: log_warn appends
 * strerror(errno), log_warnx does not. Levels are syslog's. log_ratelimited() lets a
 * caller log a repeated event (drops) at most a few times a second.
 */
#ifndef MPTUND_LOG_H
#define MPTUND_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

struct log_ratelimit {
	uint64_t window_start_ns;
	uint32_t in_window;
	uint32_t suppressed;
};

void log_init(int level, bool with_prefix);
void log_set_level(int level);
int log_get_level(void);
int log_level_parse(const char *name);		/* "debug" -> LOG_DEBUG, -1 if unknown */
const char *log_level_name(int level);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* True if this occurrence may be logged: at most 5 per second per limiter. */
bool log_ratelimit_ok(struct log_ratelimit *rl, uint64_t now_ns);

#endif
