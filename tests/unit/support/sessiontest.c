// SPDX-License-Identifier: MIT
/* A daemon with one established session for the core's unit tests (sessiontest.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include <ev.h>

#include "config.h"
#include "path.h"
#include "sessiontest.h"

static void timer_noop(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop, (void)w, (void)revents;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "sessiontest: %s: %s\n", what, err);
	abort();
}

void sessiontest_init(struct sessiontest *h, const char *conf, size_t len,
		      const char *sched, unsigned pool_pkts, uint64_t now)
{
	static const uint8_t key[MPT_AEAD_KEY_LEN] = { 1 };
	char err[256];

	h->d = calloc(1, sizeof(*h->d));
	h->s = calloc(1, sizeof(*h->s));
	if (!h->d || !h->s)
		die("calloc", "out of memory");
	if (mpt_config_parse(&h->d->cfg, "test", conf, len, err, sizeof(err)))
		die("config", err);
	if (mpt_pkt_pool_init(&h->d->pool, pool_pkts, 1500))
		die("pool", "init failed");
	h->d->txb.cap = (size_t)MPT_TX_BATCH * (1500 + MPT_WIRE_DATA_OVERHEAD + MPT_PKT_TAILROOM);
	h->d->txb.buf = malloc(h->d->txb.cap);
	if (!h->d->txb.buf)
		die("send batch", "out of memory");
	h->s->d = h->d;
	h->s->cur.valid = true;
	h->s->cur.created_ns = now;
	if (mpt_aead_init(&h->s->cur.tx, MPT_CIPHER_CHACHA20_POLY1305, key))
		die("aead", "init failed");
	h->s->sched = mpt_sched_find(sched);
	if (!h->s->sched)
		die("scheduler", sched);
	h->s->sched_priv = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
	mpt_sched_prepare(h->s->sched_priv, h->s->sched);
	h->s->npaths = h->d->cfg.npaths;
	for (unsigned i = 0; i < h->s->npaths; i++) {
		struct mpt_path *p = &h->s->paths[i];
		struct sockaddr_in *sin = (struct sockaddr_in *)&p->remote;

		if (mpt_path_init(p, (uint8_t)i, &h->d->cfg, &h->d->cfg.paths[i], &h->d->pool,
				  1, now, err, sizeof(err)))
			die("path", err);
		p->used = p->alive = true;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(9);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		p->remote_len = sizeof(*sin);
		p->rec.have_rtt = true;
	}
}

void sessiontest_free(struct sessiontest *h)
{
	for (unsigned i = 0; i < h->s->npaths; i++)
		mpt_path_free(&h->s->paths[i], &h->d->pool);
	mpt_sparse_free(&h->s->sparse, &h->d->pool);	/* the buckets of what was queued */
	free(h->s->sched_priv);
	mpt_keyslot_wipe(&h->s->cur);
	free(h->s);
	mpt_pkt_pool_free(&h->d->pool);
	free(h->d->txb.buf);
	mpt_config_free(&h->d->cfg);
	free(h->d);
}

void sessiontest_init_ue(struct sessiontest *h, const char *sched, uint64_t now)
{
	static const char conf[] =
		"[Interface]\n"
		"Role = ue\n"
		"PrivateKey = CI39FGvhTMnEClovgoRvXE1rtld7llrWIm+9QDTJz1c=\n"
		"Address = 10.7.0.2/24\n"
		"[Path]\nName = lte\nEndpoint = 127.0.0.1:9\n"
		"[Peer]\nPublicKey = FcezX5QYFnJMSbN1wRb0cjgJ/n1pxrI4h80OBA0/lRM=\n";

	sessiontest_init(h, conf, sizeof(conf) - 1, sched, 256, now);
	h->d->loop = ev_loop_new(EVFLAG_AUTO);
	if (!h->d->loop)
		die("event loop", "ev_loop_new failed");
	ev_init(&h->s->timer, timer_noop);
}

void sessiontest_free_ue(struct sessiontest *h)
{
	ev_timer_stop(h->d->loop, &h->s->timer);
	ev_loop_destroy(h->d->loop);
	sessiontest_free(h);
}
