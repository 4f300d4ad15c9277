// SPDX-License-Identifier: MIT
/* Logging to stderr; see log.h. The level is the only process-wide state here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

static int log_level = LOG_INFO;	/* process-wide by nature, set once from main */
static bool log_prefix = true;

static const char *const level_names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
	[LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void log_init(int level, bool with_prefix)
{
	log_level = level;
	log_prefix = with_prefix;
}

void log_set_level(int level)
{
	log_level = level;
}

int log_get_level(void)
{
	return log_level;
}

int log_level_parse(const char *name)
{
	for (int i = 0; i <= LOG_DEBUG; i++)
		if (strcasecmp(name, level_names[i]) == 0)
			return i;
	if (strcasecmp(name, "warn") == 0)
		return LOG_WARNING;
	return -1;
}

const char *log_level_name(int level)
{
	return level >= 0 && level <= LOG_DEBUG ? level_names[level] : "?";
}

static void __attribute__((format(printf, 3, 0)))
vlog(int level, const char *errstr, const char *fmt, va_list ap)
{
	char buf[1024];

	if (level > log_level)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* "<N>" prefixes are understood by journald for stderr lines */
	if (log_prefix)
		fprintf(stderr, "<%d>", level);
	if (errstr)
		fprintf(stderr, "%s: %s\n", buf, errstr);
	else
		fprintf(stderr, "%s\n", buf);
}

void log_warn(const char *fmt, ...)
{
	const char *e = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, e, fmt, ap);
	va_end(ap);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, NULL, fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, NULL, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_DEBUG, NULL, fmt, ap);
	va_end(ap);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

bool log_ratelimit_ok(struct log_ratelimit *rl, uint64_t now_ns)
{
	if (now_ns - rl->window_start_ns >= 1000000000ULL) {
		if (rl->suppressed && LOG_DEBUG <= log_level)
			fprintf(stderr, "%s(%u similar messages suppressed)\n",
				log_prefix ? "<7>" : "", rl->suppressed);
		rl->suppressed = 0;
		rl->window_start_ns = now_ns;
		rl->in_window = 0;
	}
	if (rl->in_window < 5) {
		rl->in_window++;
		return true;
	}
	rl->suppressed++;
	return false;
}
