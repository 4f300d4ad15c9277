/* SPDX-License-Identifier: MIT */
/*
 * What the files of the attack harness mpt_attack share: the handshake init of
 * mptund-proto(7), two helpers of mpt_attack.c and the badanchor mode of
 * mpt_badanchor.c. Nothing here comes from the daemon: the harness tests it.
 */
#ifndef MPT_ATTACK_H
#define MPT_ATTACK_H

#include <stdint.h>

/* mptund-proto(7), version 2 */
#define WIRE_VERSION	2
#define INIT_TYPE	1
#define INIT_SENDER	4
#define INIT_EPHEMERAL	8
#define INIT_MAC1	116
#define INIT_MAC2	132
#define INIT_LEN	148

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);
/* A WireGuard-style key: 44 characters of base64; 0, or -1 when s is not one. */
int key_from_b64(uint8_t key[32], const char *s);

/* The badanchor mode (mpt_attack.c's usage): 0 when it answered an init and did its
 * part, 1 on a socket error or when no init came in seconds, -1 for bad arguments. */
int badanchor(const char *bind_addr, uint16_t port, const char *priv_b64, double seconds);

#endif
