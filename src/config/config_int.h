/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by config.c (parser), config_value.c (value syntaxes) and
 * config_print.c (normalised output): the key tables and the value codecs. One table
 * drives parsing, printing and the man-page cross-check, so they cannot drift apart.
 */
#ifndef MPTUND_CONFIG_INT_H
#define MPTUND_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mptund/wire.h>

#include "config.h"

/* Exact overhead subtracted from OuterMTU for the automatic inner MTU: IPv6 header
 * (40) + UDP (8) + a data packet's own bytes (MPT_WIRE_DATA_OVERHEAD: header 16, DATA
 * frame header 3, DSN 8, AEAD tag 16). A piggybacked ACK rides only where it fits
 * (session_tx.c); over IPv4 a full packet leaves 20 bytes below the outer MTU. */
#define MPT_TUNNEL_OVERHEAD	(40 + 8 + MPT_WIRE_DATA_OVERHEAD)
#define MPT_MIN_MTU_V4		576	/* RFC 791: every host accepts 576-byte datagrams */
#define MPT_MIN_MTU_V6		1280	/* RFC 8200 section 5 */
#define MPT_MAX_MTU		65535
#define MPT_MAX_PEERS		4096	/* anchor: authorized UEs per config */
#define MPT_MAX_LINE		1024
#define MPT_MAX_CONFIG_SIZE	(1 << 20)

enum cfg_section {
	SEC_NONE,
	SEC_INTERFACE,
	SEC_SCHEDULER,
	SEC_CONGESTION,
	SEC_PATH,
	SEC_PEER,
	SEC_RULE,	/* keys parsed by rule.c */
	SEC_MAX,
};

enum cfg_type {
	T_ROLE,		/* enum mpt_role: "ue" | "anchor" */
	T_KEY,		/* 32-byte X25519 key, base64 */
	T_IFNAME,	/* network interface name, < IFNAMSIZ */
	T_IDENT,	/* [A-Za-z0-9_.-]+, < size */
	T_SOCKPATH,	/* absolute file system path, < size */
	T_PREFIXES,	/* list of mpt_prefix; .size = max entries, .count_off = count */
	T_ROUTES,	/* same, host bits cleared (routes, AllowedIPs) */
	T_U32,		/* decimal in [min, max] */
	T_U64,		/* decimal in [min, max] */
	T_PORT,		/* UDP port into a sockaddr_storage, 0..65535 */
	T_MS,		/* duration, bare number = milliseconds; ns in [min, max] */
	T_SEC,		/* duration, bare number = seconds; ns in [min, max] */
	T_RATE,		/* bytes/s; bare = bytes/s, or bit/kbit/Mbit/Gbit/Tbit */
	T_LISTENADDR,	/* IP address (no port) into a sockaddr_storage, keeps the port */
	T_SOURCE,	/* IP address, optional port */
	T_ENDPOINT,	/* IP address and port */
	T_BOOL,
	T_CIPHER,	/* enum mpt_cipher */
	T_RECOVERY,	/* enum mpt_recovery_mode */
	T_LOGLEVEL,	/* int, syslog level */
	T_MTU,		/* "auto" (0) or a number in [min, max] */
	T_SCHED,	/* scheduler name from the registry */
	T_CC,		/* congestion controller name from the registry */
	T_BUDGET,	/* struct mpt_budget (budget.h) */
	T_TAGS,		/* uint32_t bits of enum mpt_path_tag, by name (sched.h) */
};

struct cfg_key {
	const char *name;
	enum cfg_type type;
	size_t off;		/* into the section's struct */
	size_t size;		/* strings: buffer size; lists: max entries */
	size_t count_off;	/* lists: offset of the unsigned count */
	uint64_t min, max;	/* numbers, durations (ns), rates (bytes/s) */
	const char *unset;	/* printed as a comment when the value is unset */
};

struct cfg_section_desc {
	const char *name;
	const struct cfg_key *keys;
	size_t nkeys;
	bool overrides;		/* other keys are tunables of the named module */
};

/* Indexed by enum cfg_section. */
extern const struct cfg_section_desc mpt_cfg_sections[SEC_MAX];

/* The parser's state while reading a file. */
struct cfg_parser {
	struct mpt_config *cfg;
	char *err;
	size_t errlen;
	int line;
	enum cfg_section sec;
	int sec_line;
	int seen[32];			/* line each key of the open section was set on;
				 * indexed like the section's key table */
	int iface_seen[32];		/* the same, kept for [Interface] */
	int sec_first[SEC_MAX];		/* where a single section was opened */
	unsigned peer_cap;
	unsigned rule_cap;
};

/* "FILE:LINE: key: message" into ps->err (no line when line is 0, no key when NULL). */
int cfg_failat(struct cfg_parser *ps, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define cfg_fail(ps, key, ...) cfg_failat(ps, (ps)->line, key, __VA_ARGS__)
/* Parse value by k's type and store it into base (the section's struct). */
int cfg_set_value(struct cfg_parser *ps, const struct cfg_key *k, void *base,
		  const char *value);

/* Lines where [Interface] and some of its keys appeared (0: absent), for messages. */
struct cfg_lines {
	int iface, role, private_key, mtu, outer_mtu, listen_port, rekey_packets;
};

/* config_check.c: defaults that need the whole file, then cross-section checks. */
int cfg_finish(struct mpt_config *cfg, const struct cfg_lines *lines, char *err,
	       size_t errlen);

/* config_value.c */
int cfgv_u64(const char *s, uint64_t *out);
int cfgv_duration(const char *s, uint64_t bare_unit_ns, uint64_t *ns);
void cfgv_duration_format(uint64_t ns, char *buf, size_t len);
int cfgv_rate(const char *s, uint64_t *bytes_per_sec);
void cfgv_rate_format(uint64_t bytes_per_sec, char *buf, size_t len);
int cfgv_bool(const char *s, bool *out);
bool cfgv_ident_ok(const char *s);
const char *cfgv_cipher_name(enum mpt_cipher c);
int cfgv_cipher_parse(const char *s, enum mpt_cipher *out);
const char *cfgv_recovery_name(enum mpt_recovery_mode m);
int cfgv_recovery_parse(const char *s, enum mpt_recovery_mode *out);
int cfgv_ip_format(const struct sockaddr_storage *ss, char *buf, size_t len);

/* addr.c */
void mpt_prefix_mask(struct mpt_prefix *p);

#endif
