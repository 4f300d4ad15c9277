// SPDX-License-Identifier: MIT
/*
 * Value syntaxes of mptund.conf(5): integers, durations with units, rates with units,
 * booleans, base64 X25519 keys, names. Each parser accepts the whole string or fails;
 * each formatter prints the canonical form that parses back to the same value.
 *
 *   duration  NUMBER[.FRACTION][ns|us|ms|s|m|h]   bare: the key's unit (ms or s)
 *   rate      NUMBER[.FRACTION][bit|kbit|Mbit|Gbit|Tbit]   bare: bytes per second;
 *             SI multiples (1 Mbit = 10^6 bit), rounded up to whole bytes
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>


#include "config_int.h"

typedef unsigned __int128 u128;

int cfgv_u64(const char *s, uint64_t *out)
{
	u128 v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > UINT64_MAX)
			return -ERANGE;
	}
	*out = (uint64_t)v;
	return 0;
}

/*
 * "12.5" followed by a unit: value * mult / div, exactly in 128 bits, rounded up when
 * round_up, else down. *rest points at the unit. -EINVAL without digits, -ERANGE on
 * overflow of 64 bits.
 */
static int scaled(const char *s, const char **rest, uint64_t mult, uint64_t div,
		  bool round_up, uint64_t *out)
{
	u128 ip = 0, frac = 0, fdiv = 1, v, d;
	bool digits = false;

	for (; *s >= '0' && *s <= '9'; s++, digits = true) {
		ip = ip * 10 + (unsigned)(*s - '0');
		if (ip > UINT64_MAX)
			return -ERANGE;
	}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++, digits = true) {
			if (fdiv >= 1000000000000000000ULL)
				continue;	/* beyond 18 digits: no effect on the result */
			frac = frac * 10 + (unsigned)(*s - '0');
			fdiv *= 10;
		}
	}
	if (!digits)
		return -EINVAL;
	*rest = s;
	if (ip > UINT64_MAX / mult)
		return -ERANGE;
	/* (ip + frac/fdiv) * mult / div */
	v = ip * mult * fdiv + frac * mult;		/* < 2^125: no overflow */
	d = (u128)div * fdiv;
	v = round_up ? (v + d - 1) / d : v / d;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

static const struct unit {
	const char *name;
	uint64_t mult;
} time_units[] = {
	{ "h", 3600 * MPT_NSEC_PER_SEC }, { "m", 60 * MPT_NSEC_PER_SEC },
	{ "s", MPT_NSEC_PER_SEC }, { "ms", MPT_NSEC_PER_MSEC },
	{ "us", MPT_NSEC_PER_USEC }, { "ns", 1 },
}, rate_units[] = {
	{ "Tbit", 1000000000000ULL }, { "Gbit", 1000000000ULL }, { "Mbit", 1000000ULL },
	{ "kbit", 1000ULL }, { "bit", 1 },
};

int cfgv_duration(const char *s, uint64_t bare_unit_ns, uint64_t *ns)
{
	const char *unit;
	uint64_t v;
	int rc;

	/* parse once to find the unit, then again with its multiplier */
	rc = scaled(s, &unit, 1, 1, false, &v);
	if (rc == -EINVAL)
		return rc;
	if (rc == 0 && !*unit)
		return scaled(s, &unit, bare_unit_ns, 1, false, ns);
	for (size_t i = 0; i < MPT_ARRAY_SIZE(time_units); i++) {
		const char *u;

		if (rc == 0 && strcmp(unit, time_units[i].name) == 0)
			return scaled(s, &u, time_units[i].mult, 1, false, ns);
	}
	return rc ? rc : -EINVAL;
}

void cfgv_duration_format(uint64_t ns, char *buf, size_t len)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(time_units); i++) {
		if (ns % time_units[i].mult == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(ns / time_units[i].mult),
				 time_units[i].name);
			return;
		}
	}
}

int cfgv_rate(const char *s, uint64_t *bytes_per_sec)
{
	const char *unit;
	uint64_t v;
	int rc;

	rc = scaled(s, &unit, 1, 1, true, &v);
	if (rc == -EINVAL)
		return rc;
	if (rc == 0 && !*unit)
		return scaled(s, &unit, 1, 1, true, bytes_per_sec);
	for (size_t i = 0; i < MPT_ARRAY_SIZE(rate_units); i++) {
		const char *u;

		if (rc == 0 && strcasecmp(unit, rate_units[i].name) == 0)
			return scaled(s, &u, rate_units[i].mult, 8, true, bytes_per_sec);
	}
	return rc ? rc : -EINVAL;
}

void cfgv_rate_format(uint64_t bytes_per_sec, char *buf, size_t len)
{
	u128 bits = (u128)bytes_per_sec * 8;

	for (size_t i = 0; bytes_per_sec && i + 1 < MPT_ARRAY_SIZE(rate_units); i++) {
		if (bits % rate_units[i].mult == 0) {
			snprintf(buf, len, "%llu%s",
				 (unsigned long long)(bits / rate_units[i].mult),
				 rate_units[i].name);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes_per_sec);
}

int cfgv_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < MPT_ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

bool cfgv_ident_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

static const char *const cipher_names[] = {
	[MPT_CIPHER_CHACHA20_POLY1305] = "chacha20-poly1305",
	[MPT_CIPHER_AES_256_GCM] = "aes-256-gcm",
};

const char *cfgv_cipher_name(enum mpt_cipher c)
{
	return (unsigned)c < MPT_ARRAY_SIZE(cipher_names) ? cipher_names[c] : "?";
}

int cfgv_cipher_parse(const char *s, enum mpt_cipher *out)
{
	for (unsigned i = 0; i < MPT_ARRAY_SIZE(cipher_names); i++) {
		if (strcasecmp(s, cipher_names[i]) == 0) {
			*out = (enum mpt_cipher)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const recovery_names[] = {
	[MPT_RECOVERY_OFF] = "off",
	[MPT_RECOVERY_RETRANSMIT] = "retransmit",
};

const char *cfgv_recovery_name(enum mpt_recovery_mode m)
{
	return (unsigned)m < MPT_ARRAY_SIZE(recovery_names) ? recovery_names[m] : "?";
}

int cfgv_recovery_parse(const char *s, enum mpt_recovery_mode *out)
{
	for (unsigned i = 0; i < MPT_ARRAY_SIZE(recovery_names); i++) {
		if (strcasecmp(s, recovery_names[i]) == 0) {
			*out = (enum mpt_recovery_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The address part alone, without brackets or port. */
int cfgv_ip_format(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a;

	if (ss->ss_family == AF_INET)
		a = &((const struct sockaddr_in *)ss)->sin_addr;
	else if (ss->ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	else
		return -EAFNOSUPPORT;
	return inet_ntop(ss->ss_family, a, buf, (socklen_t)len) ? 0 : -ENOSPC;
}
