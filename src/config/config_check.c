// SPDX-License-Identifier: MIT
/*
 * Whole-file checks of mptund.conf(5), run after every section has been read: the
 * requirements that depend on Role (the UE needs paths with endpoints and exactly one
 * peer; the anchor needs ListenPort and peers with AllowedIPs), duplicates across
 * sections, overlapping AllowedIPs, and the MTU bounds. Also derives the public key.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config_int.h"
#include "keys.h"

__attribute__((format(printf, 6, 7)))
static int failat(const struct mpt_config *cfg, char *err, size_t errlen, int line,
		  const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (line > 0)
		n = snprintf(err, errlen, "%s:%d: %s: ", cfg->file, line, key);
	else
		n = snprintf(err, errlen, "%s: %s: ", cfg->file, key);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define FAIL(line, key, ...) failat(cfg, err, errlen, line, key, __VA_ARGS__)

static bool prefixes_overlap(const struct mpt_prefix *a, const struct mpt_prefix *b)
{
	const struct mpt_prefix *wide = a->plen <= b->plen ? a : b;
	const struct mpt_prefix *narrow = wide == a ? b : a;

	return mpt_prefix_contains(wide, narrow->family, narrow->addr.bytes);
}

static int check_peers(const struct mpt_config *cfg, char *err, size_t errlen)
{
	char pa[64], pb[64];

	for (unsigned i = 0; i < cfg->npeers; i++) {
		const struct mpt_peer_config *p = &cfg->peers[i];

		if (cfg->role == MPT_ROLE_ANCHOR && p->nallowed == 0)
			return FAIL(p->line, "AllowedIPs", "missing in [Peer] '%s' (the "
				    "anchor routes to a UE by its AllowedIPs)", p->name);
		for (unsigned j = 0; j < i; j++) {
			const struct mpt_peer_config *q = &cfg->peers[j];

			if (strcmp(p->name, q->name) == 0)
				return FAIL(p->line, "Name", "duplicate peer name '%s' (also "
					    "at line %d)", p->name, q->line);
			if (memcmp(p->public_key, q->public_key, MPT_KEY_LEN) == 0)
				return FAIL(p->line, "PublicKey", "peer '%s' has the same key "
					    "as peer '%s' (line %d)", p->name, q->name,
					    q->line);
			if (cfg->role != MPT_ROLE_ANCHOR)
				continue;
			for (unsigned a = 0; a < p->nallowed; a++) {
				for (unsigned b = 0; b < q->nallowed; b++) {
					if (!prefixes_overlap(&p->allowed[a], &q->allowed[b]))
						continue;
					mpt_prefix_format(&p->allowed[a], pa, sizeof(pa));
					mpt_prefix_format(&q->allowed[b], pb, sizeof(pb));
					return FAIL(p->line, "AllowedIPs", "'%s' of peer '%s' "
						    "overlaps '%s' of peer '%s' (line %d)", pa,
						    p->name, pb, q->name, q->line);
				}
			}
		}
	}
	return 0;
}

static int check_paths(const struct mpt_config *cfg, char *err, size_t errlen)
{
	for (unsigned i = 0; i < cfg->npaths; i++) {
		const struct mpt_path_config *p = &cfg->paths[i];
		const char *ue_only = NULL;

		for (unsigned j = 0; j < i; j++)
			if (strcmp(p->name, cfg->paths[j].name) == 0)
				return FAIL(p->line, "Name", "duplicate path name '%s' (also "
					    "at line %d)", p->name, cfg->paths[j].line);
		if (cfg->role == MPT_ROLE_UE) {
			if (!p->endpoint.ss_family)
				return FAIL(p->line, "Endpoint", "missing in [Path] '%s' (the "
					    "UE sends to the anchor there)", p->name);
			continue;
		}
		if (p->endpoint.ss_family)
			ue_only = "Endpoint";
		else if (p->source.ss_family)
			ue_only = "Source";
		else if (p->device[0])
			ue_only = "Device";
		else if (p->disabled)
			ue_only = "Disabled";
		if (ue_only)
			return FAIL(p->line, ue_only, "used only on the UE (in [Path] '%s' "
				    "of an anchor)", p->name);
	}
	if (cfg->role == MPT_ROLE_UE && cfg->npaths == 0)
		return FAIL(0, "[Path]", "missing (the UE needs at least one path)");
	return 0;
}

static int check_mtu(const struct mpt_config *cfg, const struct cfg_lines *lines,
		     char *err, size_t errlen)
{
	uint32_t min = MPT_MIN_MTU_V4;
	const char *why = "IPv4";

	for (unsigned i = 0; i < cfg->naddrs; i++) {
		if (cfg->addrs[i].family == AF_INET6) {
			min = MPT_MIN_MTU_V6;
			why = "IPv6";
		}
	}
	if (cfg->mtu && cfg->mtu < min)
		return FAIL(lines->mtu, "MTU", "'%u' is below %u, the %s minimum", cfg->mtu,
			    min, why);
	if (!cfg->mtu && cfg->outer_mtu - MPT_TUNNEL_OVERHEAD < min)
		return FAIL(lines->outer_mtu ? lines->outer_mtu : lines->iface, "OuterMTU",
			    "'%u' leaves an inner MTU of %u, below the %s minimum %u; raise "
			    "OuterMTU or set MTU", cfg->outer_mtu,
			    cfg->outer_mtu - MPT_TUNNEL_OVERHEAD, why, min);
	return 0;
}

int cfg_finish(struct mpt_config *cfg, const struct cfg_lines *lines, char *err,
	       size_t errlen)
{
	struct sockaddr_in6 *l6 = (struct sockaddr_in6 *)&cfg->listen;
	int rc;

	if (!lines->role)
		return FAIL(lines->iface, "Role", "missing in [Interface] (ue or anchor)");
	if (!lines->private_key)
		return FAIL(lines->iface, "PrivateKey", "missing in [Interface]");
	if (mpt_key_public(cfg->public_key, cfg->private_key) < 0)
		return FAIL(lines->private_key, "PrivateKey", "cannot derive the public key");
	if (!cfg->listen.ss_family) {
		l6->sin6_family = AF_INET6;	/* "::", dual-stack; port already set */
		l6->sin6_addr = in6addr_any;
	}
	if (cfg->role == MPT_ROLE_ANCHOR && l6->sin6_port == 0)
		return FAIL(lines->listen_port ? lines->listen_port : lines->iface,
			    "ListenPort", "%s (the anchor needs a port to listen on)",
			    lines->listen_port ? "'0' is not allowed" : "missing");
	if (cfg->role == MPT_ROLE_UE && cfg->npeers != 1) {
		if (cfg->npeers == 0)
			return FAIL(0, "[Peer]", "missing (the UE needs exactly one, the "
				    "anchor)");
		return FAIL(cfg->peers[1].line, "[Peer]", "the UE takes exactly one [Peer] "
			    "(the anchor), not %u", cfg->npeers);
	}
	if (cfg->role == MPT_ROLE_ANCHOR && cfg->npeers == 0)
		return FAIL(0, "[Peer]", "missing (the anchor needs one per UE)");
	if (cfg->cipher == MPT_CIPHER_AES_256_GCM &&
	    cfg->rekey_after_packets > MPT_REKEY_PACKETS_AES_GCM)
		return FAIL(lines->rekey_packets ? lines->rekey_packets : lines->iface,
			    "RekeyAfterPackets", "'%llu' exceeds %llu (2^23), the most packets "
			    "AES-256-GCM may seal under one key (RFC 9001 section 6.6)",
			    (unsigned long long)cfg->rekey_after_packets,
			    (unsigned long long)MPT_REKEY_PACKETS_AES_GCM);
	rc = check_peers(cfg, err, errlen);
	if (rc == 0)
		rc = check_paths(cfg, err, errlen);
	if (rc == 0)
		rc = check_mtu(cfg, lines, err, errlen);
	return rc;
}

uint32_t mpt_config_inner_mtu(const struct mpt_config *cfg)
{
	return cfg->mtu ? cfg->mtu : cfg->outer_mtu - MPT_TUNNEL_OVERHEAD;
}
