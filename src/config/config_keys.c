// SPDX-License-Identifier: MIT
/*
 * The keys of mptund.conf(5), one table per section: name, value type, where it is
 * stored, range. The parser (config.c, config_set.c), the printer (config_print.c) and
 * the man-page cross-check test all read these tables; see config.h for defaults.
 */
#include <string.h>
#include <strings.h>

#include "config_int.h"
#include "rule.h"

#define KEY(n, t, s, f, ...) { .name = n, .type = t, .off = offsetof(s, f), __VA_ARGS__ }
#define IF(n, t, f, ...) KEY(n, t, struct mpt_config, f, __VA_ARGS__)
#define PA(n, t, f, ...) KEY(n, t, struct mpt_path_config, f, __VA_ARGS__)
#define PE(n, t, f, ...) KEY(n, t, struct mpt_peer_config, f, __VA_ARGS__)
#define MS(x)	((uint64_t)(x) * MPT_NSEC_PER_MSEC)
#define SEC(x)	((uint64_t)(x) * MPT_NSEC_PER_SEC)

static const struct cfg_key interface_keys[] = {
	IF("Role", T_ROLE, role),
	IF("PrivateKey", T_KEY, private_key),
	IF("Name", T_IFNAME, tun_name, .size = MPT_NAME_LEN),
	IF("Address", T_PREFIXES, addrs, .size = MPT_MAX_ADDRS,
	   .count_off = offsetof(struct mpt_config, naddrs)),
	IF("MTU", T_MTU, mtu, .min = MPT_MIN_MTU_V4, .max = MPT_MAX_MTU),
	IF("OuterMTU", T_U32, outer_mtu, .min = MPT_MIN_MTU_V4, .max = MPT_MAX_MTU),
	IF("ListenPort", T_PORT, listen, .max = 65535),
	IF("ListenAddress", T_LISTENADDR, listen),
	IF("Route", T_ROUTES, routes, .size = MPT_MAX_ROUTES,
	   .count_off = offsetof(struct mpt_config, nroutes)),
	IF("Cipher", T_CIPHER, cipher),
	IF("User", T_IDENT, user, .size = 32, .unset = "(not set: stay root)"),
	IF("Group", T_IDENT, group, .size = 32, .unset = "(not set: the user's group)"),
	IF("ControlSocket", T_SOCKPATH, ctl_path, .size = MPT_PATH_LEN),
	IF("StateFile", T_SOCKPATH, state_file, .size = MPT_PATH_LEN),
	IF("ControlGroup", T_IDENT, ctl_group, .size = 32, .unset = "(not set: owner only)"),
	IF("ProbeInterval", T_MS, probe_interval_ns, .min = MS(10), .max = SEC(60)),
	IF("ProbeMissLimit", T_U32, probe_miss_limit, .min = 1, .max = 1000),
	IF("IdleProbeInterval", T_MS, idle_probe_max_ns, .min = MS(10), .max = SEC(3600)),
	IF("QueueLimit", T_U32, queue_limit, .min = 16, .max = 1048576),
	IF("SparseFlows", T_BOOL, sparse_flows),
	IF("ReorderBuffer", T_U32, reorder_buffer, .min = 16, .max = 65536),
	IF("ReorderMaxHold", T_MS, reorder_max_hold_ns, .min = 0, .max = SEC(10)),
	IF("ReorderMargin", T_MS, reorder_margin_ns, .min = 0, .max = SEC(1)),
	IF("Recovery", T_RECOVERY, recovery),
	IF("ClampMSS", T_BOOL, clamp_mss),
	IF("TunOffload", T_BOOL, tun_offload),
	IF("AckRouting", T_BOOL, ack_routing),
	IF("RekeyAfterTime", T_SEC, rekey_after_ns, .min = SEC(10), .max = SEC(86400)),
	IF("RekeyAfterPackets", T_U64, rekey_after_packets, .min = 1024,
	   .max = 1ULL << 60),
	IF("LogLevel", T_LOGLEVEL, log_level),
	IF("Seed", T_U64, seed, .max = UINT64_MAX),
};

static const struct cfg_key scheduler_keys[] = {
	IF("Name", T_SCHED, sched, .size = MPT_NAME_LEN),
};

static const struct cfg_key congestion_keys[] = {
	IF("Name", T_CC, cc, .size = MPT_NAME_LEN),
};

static const struct cfg_key path_keys[] = {
	PA("Name", T_IDENT, name, .size = MPT_NAME_LEN),
	PA("Device", T_IFNAME, device, .size = MPT_NAME_LEN, .unset = "(not set: any)"),
	PA("Source", T_SOURCE, source, .unset = "(not set: any)"),
	PA("Endpoint", T_ENDPOINT, endpoint, .unset = "(not set)"),
	PA("Cost", T_U32, cost, .max = 1000000),
	PA("Weight", T_U32, weight, .max = 1000000),
	PA("Capacity", T_RATE, capacity, .max = 125000000000ULL),	/* 1 Tbit/s */
	PA("CC", T_CC, cc, .size = MPT_NAME_LEN, .unset = "(not set: [Congestion] Name)"),
	PA("Disabled", T_BOOL, disabled),
	PA("Mtu", T_MTU, mtu, .min = 1200, .max = 65535),
	PA("Budget", T_BUDGET, budget, .unset = "(not set: unlimited)"),
	PA("Tags", T_TAGS, tags, .unset = "(none)"),
};

static const struct cfg_key peer_keys[] = {
	PE("Name", T_IDENT, name, .size = MPT_NAME_LEN),
	PE("PublicKey", T_KEY, public_key),
	PE("AllowedIPs", T_ROUTES, allowed, .size = MPT_MAX_ALLOWED,
	   .count_off = offsetof(struct mpt_peer_config, nallowed)),
};

_Static_assert(MPT_ARRAY_SIZE(interface_keys) <= 32, "cfg_parser.seen[] too small");

#define SECTION(n, k, o) \
	{ .name = n, .keys = k, .nkeys = MPT_ARRAY_SIZE(k), .overrides = o }
const struct cfg_section_desc mpt_cfg_sections[SEC_MAX] = {
	[SEC_NONE] = { .name = "" },
	[SEC_INTERFACE] = SECTION("Interface", interface_keys, false),
	[SEC_SCHEDULER] = SECTION("Scheduler", scheduler_keys, true),
	[SEC_CONGESTION] = SECTION("Congestion", congestion_keys, true),
	[SEC_PATH] = SECTION("Path", path_keys, false),
	[SEC_PEER] = SECTION("Peer", peer_keys, false),
	[SEC_RULE] = { .name = "Rule", .overrides = true },	/* keys: rule.c */
};

const char *mpt_config_key_name(const char *section, size_t i)
{
	if (strcasecmp(section, "Rule") == 0)
		return mpt_rule_key_name(i);
	for (int s = SEC_INTERFACE; s < SEC_MAX; s++)
		if (strcasecmp(mpt_cfg_sections[s].name, section) == 0)
			return i < mpt_cfg_sections[s].nkeys ?
			       mpt_cfg_sections[s].keys[i].name : NULL;
	return NULL;
}
