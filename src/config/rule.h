/* SPDX-License-Identifier: MIT */
/*
 * Steering rules (ATSSS rules, 3GPP TS 23.501 5.32.8 / TS 24.193 5.2): a traffic
 * descriptor over the inner packet (destination and source prefixes, protocol,
 * destination and source port ranges, DSCP) mapped to a scheduler of the registry
 * with its tunables. First match wins; a packet no rule matches goes to the session's
 * [Scheduler] (the default rule).
 *
 * A rule is written as the UE sees its uplink: Destination is the far end. The
 * anchor matches downlink packets with addresses and ports swapped (struct
 * mpt_flow_key.reversed), so one rule steers both directions of a flow.
 *
 * One syntax for every source: the [Rule] section of mptund.conf(5), a "spec" of
 * space-separated Key=value tokens (mptund-ctl rule add, the RULES frame of
 * mptund-proto(7)), and the printed form (mpt_rule_format), which parses back to
 * the same rule. Pure functions: no I/O, no allocation (fuzz target).
 */
#ifndef MPTUND_RULE_H
#define MPTUND_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define MPT_MAX_RULES		64	/* per table (config and ctl; pushed) */
#define MPT_RULE_MAX_PREFIXES	8	/* per Destination / Source */
#define MPT_RULE_MAX_PORTS	8	/* ranges per DestinationPort / SourcePort */
#define MPT_RULE_MAX_PARAMS	16	/* scheduler tunables per rule */
#define MPT_RULE_PROTO_ANY	(-1)
#define MPT_RULE_PROTO_ICMP	256	/* "icmp": ICMP (1) or ICMPv6 (58) */
#define MPT_RULE_SPEC_MAX	2048	/* longest spec mpt_rule_format writes */

struct mpt_port_range {
	uint16_t lo, hi;
};

struct mpt_rule {
	char name[MPT_NAME_LEN];
	char peer[MPT_NAME_LEN];	/* anchor: the peer it is for; "" = every peer */
	struct mpt_prefix dst[MPT_RULE_MAX_PREFIXES], src[MPT_RULE_MAX_PREFIXES];
	uint8_t ndst, nsrc;		/* 0 = any */
	uint8_t ndport, nsport;		/* 0 = any */
	struct mpt_port_range dport[MPT_RULE_MAX_PORTS], sport[MPT_RULE_MAX_PORTS];
	int16_t proto;			/* MPT_RULE_PROTO_ANY, 0..255, MPT_RULE_PROTO_ICMP */
	uint64_t dscp;			/* bit d set: DSCP d matches; 0 = any */
	char sched[MPT_NAME_LEN];	/* a scheduler of the registry */
	bool unordered;			/* Ordered = no: delivered at once, past the
					 * ordered traffic's holes (DATA_UNORDERED) */
	struct mpt_override params[MPT_RULE_MAX_PARAMS];
	unsigned nparams;
	int line;			/* config line of [Rule]; 0 elsewhere */
};

/* What a rule looks at, from the inner packet (pktmeta.h). */
struct mpt_flow_key {
	uint8_t family;			/* AF_INET or AF_INET6 */
	uint8_t proto;
	uint8_t dscp;
	bool ports;			/* the transport ports were read */
	uint16_t sport, dport;		/* host order */
	uint8_t src[16], dst[16];	/* network order; IPv4 in the first 4 bytes */
};

/* An empty rule: matches everything, no scheduler yet. */
void mpt_rule_init(struct mpt_rule *r);

/*
 * Set one key (case-insensitive: Name, Peer, Destination, Source, Protocol,
 * DestinationPort, SourcePort, DSCP, Scheduler, Ordered; any other key is a tunable of the
 * scheduler, checked by mpt_rule_check). List keys add to what is there. Returns 0 or
 * -EINVAL with "Key: 'value' ..." in err, quoting the value.
 */
int mpt_rule_set(struct mpt_rule *r, const char *key, const char *value, char *err,
		 size_t errlen);
/* The rule is complete: a name, a scheduler of the registry, its tunables valid
 * (their names take the table's spelling). On error *line is the bad tunable's
 * mpt_override.line (0: the rule as a whole). */
int mpt_rule_check(struct mpt_rule *r, int *line, char *err, size_t errlen);
/* Parse a spec ("Name=voip Protocol=udp DestinationPort=5060 Scheduler=minrtt") into
 * r and check it. */
int mpt_rule_parse(struct mpt_rule *r, const char *spec, size_t len, char *err,
		   size_t errlen);
/*
 * A rule set as text (the RULES frames of mptund-proto(7)): one spec a line, empty
 * lines ignored. Fills out[0..*n) (at most max), names unique, no Peer= (a pushed
 * set is for its receiver). 0, or -EINVAL with "rule N: ..." in err.
 */
int mpt_rule_parse_set(const char *text, size_t len, struct mpt_rule *out, unsigned max,
		       unsigned *n, char *err, size_t errlen);
/* The normalised spec; returns its length (< len) or -ENOSPC. */
int mpt_rule_format(const struct mpt_rule *r, char *buf, size_t len);
/* Same rule (what makes two rules' scheduler instances interchangeable too). */
bool mpt_rule_equal(const struct mpt_rule *a, const struct mpt_rule *b);

/* Does r match the packet? reversed: match as the mirror image (anchor downlink). */
bool mpt_rule_match(const struct mpt_rule *r, const struct mpt_flow_key *k, bool reversed);

/* Keys the [Rule] section knows, for the man-page cross-check; NULL past the end. */
const char *mpt_rule_key_name(size_t i);

#endif
