/* SPDX-License-Identifier: MIT */
/*
 * mptund configuration: the parsed form of /etc/mptund/NAME.conf (mptund.conf(5)).
 * Configuration only: no runtime state lives here. See configs/ for examples.
 *
 *   [Interface]   Role, PrivateKey, Name (TUN), Address, MTU, OuterMTU, ListenPort,
 *                 ListenAddress, Route, Cipher, User, Group, ControlSocket, ControlGroup,
 *                 ProbeInterval, ProbeMissLimit, QueueLimit, SparseFlows, ReorderBuffer,
 *                 ReorderMaxHold, ReorderMargin, RekeyAfterTime, RekeyAfterPackets,
 *                 LogLevel, Seed
 *   [Scheduler]   Name, then any tunable of that scheduler by its name
 *   [Congestion]  Name (default controller), then any tunable of it by its name
 *   [Path]        (UE: one per path, up to 8) Name, Device, Source, Endpoint, Cost,
 *                 Weight, Capacity, CC, Disabled
 *                 (anchor: optional; Name, Cost, Weight, Capacity, CC for paths the UEs
 *                 announce under that name)
 *   [Peer]        UE: exactly one, the anchor. Anchor: one per authorized UE.
 *                 PublicKey, AllowedIPs (anchor: the UE's tunnel prefixes), Name
 *   [Rule]        (any number, first match wins; rule.h) Name, Peer, Destination,
 *                 Source, Protocol, DestinationPort, SourcePort, DSCP, Scheduler, then
 *                 any tunable of that scheduler by its name
 */
#ifndef MPTUND_CONFIG_H
#define MPTUND_CONFIG_H

#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#include <mptund/cc.h>
#include <mptund/common.h>
#include <mptund/sched.h>

#include "budget.h"

#define MPT_KEY_LEN		32
#define MPT_MAX_ADDRS		8
#define MPT_MAX_ROUTES		32
#define MPT_MAX_ALLOWED		16
#define MPT_MAX_OVERRIDES	32
#define MPT_PATH_LEN		108	/* sun_path */

struct mpt_rule;

enum mpt_role { MPT_ROLE_UE, MPT_ROLE_ANCHOR };

enum mpt_cipher { MPT_CIPHER_CHACHA20_POLY1305, MPT_CIPHER_AES_256_GCM };
/* Tunnel-level loss recovery: off, or a lost packet re-sent once (mptund.conf(5)). */
enum mpt_recovery_mode { MPT_RECOVERY_OFF, MPT_RECOVERY_RETRANSMIT };

/* An address with prefix length, IPv4 or IPv6. */
struct mpt_prefix {
	int family;			/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
		uint8_t bytes[16];
	} addr;
	uint8_t plen;
};

/* A "name = value" tunable override, validated against the module's table. */
struct mpt_override {
	char name[32];
	char value[32];
	int line;			/* config line, for messages at apply time */
};

struct mpt_path_config {
	char name[MPT_NAME_LEN];
	char device[MPT_NAME_LEN];	/* SO_BINDTODEVICE; "" = none */
	struct sockaddr_storage source;	/* bind address; ss_family 0 = any */
	struct sockaddr_storage endpoint; /* UE: anchor address:port for this path */
	uint32_t cost;			/* default: path index */
	uint32_t weight;		/* 0 = unset (WRR uses BtlBw) */
	uint64_t capacity;		/* bytes/s; 0 = unset */
	char cc[MPT_NAME_LEN];		/* "" = [Congestion] Name */
	bool disabled;			/* administratively down at start */
	uint32_t mtu;			/* outer path MTU pinned; 0 = discover (plpmtud.h) */
	struct mpt_budget budget;	/* data budget (budget.h); period NONE = none */
	uint32_t tags;			/* enum mpt_path_tag bits (Tags =) */
	int line;			/* where the section started */
};

struct mpt_peer_config {
	char name[MPT_NAME_LEN];	/* for logs and mptund-ctl; default "peerN" */
	uint8_t public_key[MPT_KEY_LEN];
	struct mpt_prefix allowed[MPT_MAX_ALLOWED];
	unsigned nallowed;
	int line;
};

/*
 * Packets per key: AES-GCM's confidentiality and integrity limits allow about 2^23
 * packets under one key (RFC 9001 section 6.6, with its margin), so RekeyAfterPackets
 * may not exceed MPT_REKEY_PACKETS_AES_GCM with that cipher; the default is half of
 * it for both ciphers.
 */
#define MPT_REKEY_PACKETS_AES_GCM	(1ULL << 23)
#define MPT_REKEY_PACKETS_DEFAULT	(1ULL << 22)

struct mpt_config {
	char file[256];			/* path it was read from, for messages */
	enum mpt_role role;
	uint8_t private_key[MPT_KEY_LEN];
	uint8_t public_key[MPT_KEY_LEN];	/* derived from private_key */

	char tun_name[MPT_NAME_LEN];	/* default "mpt0" */
	struct mpt_prefix addrs[MPT_MAX_ADDRS];
	unsigned naddrs;
	struct mpt_prefix routes[MPT_MAX_ROUTES];
	unsigned nroutes;
	uint32_t mtu;			/* inner MTU; 0 = auto from outer_mtu */
	uint32_t outer_mtu;		/* default 1500 */
	bool clamp_mss;			/* TCP MSS to the smallest path (mss_clamp.h) */
	bool tun_offload;		/* TSO/USO super-packets from the TUN (tun.h) */
	bool ack_routing;		/* ACKs of a path on another (proto/ackroute.h) */

	struct sockaddr_storage listen;	/* anchor: address and ListenPort */
	enum mpt_cipher cipher;		/* default chacha20-poly1305 */
	enum mpt_recovery_mode recovery;	/* default retransmit */

	char user[32], group[32];	/* drop privileges to; "" = stay root */
	char ctl_path[MPT_PATH_LEN];	/* default /run/mptund/NAME.sock */
	char state_file[MPT_PATH_LEN];	/* budget usage; default /var/lib/mptund/NAME.state */
	char ctl_group[32];		/* "" = owner only */

	uint64_t probe_interval_ns;	/* default 200 ms */
	uint32_t probe_miss_limit;	/* default 5 */
	uint64_t idle_probe_max_ns;	/* UE: idle paths' probe interval backs off to
					 * this; default 15 s */
	uint32_t queue_limit;		/* scheduler queue, packets; default 1024 */
	bool sparse_flows;		/* the queue's sparse-flow lane (core/sparse.h);
					 * default true */
	uint32_t reorder_buffer;	/* packets; default 1024 */
	uint64_t reorder_max_hold_ns;	/* cap on the hold beyond the delay spread (reorder.h) */
	uint64_t reorder_margin_ns;	/* added to the one-way-delay spread; default 5 ms */
	uint64_t rekey_after_ns;	/* default 120 s */
	uint64_t rekey_after_packets;	/* default MPT_REKEY_PACKETS_DEFAULT */
	int log_level;			/* LOG_ERR..LOG_DEBUG; default LOG_INFO */
	uint64_t seed;			/* PRNG seed; 0 = random at start */

	char sched[MPT_NAME_LEN];	/* default "rr" */
	struct mpt_override sched_params[MPT_MAX_OVERRIDES];
	unsigned nsched_params;
	char cc[MPT_NAME_LEN];		/* default "fixed" */
	struct mpt_override cc_params[MPT_MAX_OVERRIDES];
	unsigned ncc_params;

	struct mpt_path_config paths[MPT_MAX_PATHS];
	unsigned npaths;
	struct mpt_peer_config *peers;	/* malloc'ed */
	unsigned npeers;
	struct mpt_rule *rules;		/* malloc'ed; [Rule] sections in order (rule.h) */
	unsigned nrules;
};

/*
 * Parse a config file. On error returns -EINVAL (or -errno for I/O) and writes
 * "FILE:LINE: key: message" into err. name (the instance name, for defaults such as
 * the control socket path) is derived from the file name when NULL.
 */
int mpt_config_load(struct mpt_config *cfg, const char *path, char *err, size_t errlen);
/* Same, from a buffer (tests, fuzzing); file names the source in messages. */
int mpt_config_parse(struct mpt_config *cfg, const char *file, const char *text,
		     size_t len, char *err, size_t errlen);
void mpt_config_free(struct mpt_config *cfg);
/* Print the normalised config (every key, defaults filled in, keys as base64). */
void mpt_config_print(const struct mpt_config *cfg, FILE *out);
/* mptund --check -c FILE: load, print the normalised config to out, errors to errout.
 * Returns the process exit code (0 valid, 1 invalid). */
int mpt_config_check_main(const char *path, FILE *out, FILE *errout);
/* Keys the parser knows in a section ("Interface", "Path", ...), by index; NULL past
 * the end. [Scheduler] and [Congestion] also take their module's tunables. */
const char *mpt_config_key_name(const char *section, size_t i);

/* Apply overrides to a freshly prepared blob; message quotes file:line on error. */
int mpt_config_apply_sched(const struct mpt_config *cfg, const struct mpt_sched_ops *ops,
			   void *priv, char *err, size_t errlen);
int mpt_config_apply_cc(const struct mpt_config *cfg, const struct mpt_cc_ops *ops,
			void *priv, char *err, size_t errlen);

/* Effective inner MTU (cfg->mtu or derived from outer_mtu minus the overheads). */
uint32_t mpt_config_inner_mtu(const struct mpt_config *cfg);

/* Prefix helpers shared by config and the anchor's downlink lookup. */
int mpt_prefix_parse(const char *text, struct mpt_prefix *out);
bool mpt_prefix_contains(const struct mpt_prefix *p, int family, const void *addr);
int mpt_prefix_format(const struct mpt_prefix *p, char *buf, size_t len);
/* "1.2.3.4:5", "[::1]:5", port required unless default_port != 0 */
int mpt_sockaddr_parse(const char *text, uint16_t default_port,
		       struct sockaddr_storage *out);
int mpt_sockaddr_format(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif
