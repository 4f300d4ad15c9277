/* SPDX-License-Identifier: MIT */
/*
 * Constants shared by the daemon, the CLI and the algorithm modules.
 * Time is always a monotonic clock in nanoseconds, passed in as an argument.
 */
#ifndef MPTUND_COMMON_H
#define MPTUND_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MPT_MAX_PATHS		8	/* paths per session (fits a uint8_t mask) */
#define MPT_NAME_LEN		16	/* path and module names, NUL included */

#define MPT_NSEC_PER_SEC	1000000000ULL
#define MPT_NSEC_PER_MSEC	1000000ULL
#define MPT_NSEC_PER_USEC	1000ULL

#define MPT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MPT_MIN(a, b)		((a) < (b) ? (a) : (b))
#define MPT_MAX(a, b)		((a) > (b) ? (a) : (b))

#endif
