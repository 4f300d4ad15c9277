/* SPDX-License-Identifier: MIT */
/*
 * A daemon with one established session built from a config text, for the unit tests
 * that drive the core (session_tx.c, path_tx.c) without a handshake: the session's
 * current keyslot seals with a fixed key, every configured path is up and sends to
 * 127.0.0.1:9 (discard) through its own socket, RTT samples assumed present, the
 * daemon's send batch allocated as the daemon does (1,500-byte packets). The
 * test sets what it needs beyond that (min RTTs, windows, pacer state).
 */
#ifndef MPTUND_SESSIONTEST_H
#define MPTUND_SESSIONTEST_H

#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "session.h"

struct sessiontest {
	struct mpt_daemon *d;
	struct mpt_session *s;
};

/* Parse conf (len bytes), make the session with scheduler sched; aborts with a
 * message on any failure. */
void sessiontest_init(struct sessiontest *h, const char *conf, size_t len,
		      const char *sched, unsigned pool_pkts, uint64_t now);
void sessiontest_free(struct sessiontest *h);
/* The same for a UE with one path ("lte") and the given scheduler, 256 packets, with
 * an event loop and the session timer set up with a callback that does nothing (the
 * test reads the timer's time instead); sessiontest_free_ue undoes it. */
void sessiontest_init_ue(struct sessiontest *h, const char *sched, uint64_t now);
void sessiontest_free_ue(struct sessiontest *h);

#endif
