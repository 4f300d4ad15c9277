// SPDX-License-Identifier: MIT
/*
 * Address helpers shared by the config parser and the anchor's downlink lookup:
 * prefixes ("10.7.0.2/32", "fd00::/64") and numeric socket addresses ("192.0.2.1:51820",
 * "[2001:db8::1]:51820"). Numeric only: no name resolution, no scope ids.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_int.h"

/* Parse a decimal number in [0, max] that fills the whole string. */
static int parse_small_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

static int parse_ip(const char *text, int *family, void *addr)
{
	if (inet_pton(AF_INET, text, addr) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, addr) == 1) {
		*family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/* Zero the host bits so that "10.0.0.1/24" and "10.0.0.0/24" compare equal. */
void mpt_prefix_mask(struct mpt_prefix *p)
{
	unsigned bytes = p->family == AF_INET ? 4 : 16;

	for (unsigned i = 0; i < bytes; i++) {
		unsigned bit = i * 8;

		if (bit >= p->plen)
			p->addr.bytes[i] = 0;
		else if (bit + 8 > p->plen)
			p->addr.bytes[i] &= (uint8_t)(0xff << (8 - (p->plen - bit)));
	}
}

/*
 * "ADDR/LEN" or a bare "ADDR" (a host prefix). Host bits are kept as written (an
 * interface Address carries its host part) — callers that need a network mask it.
 */
int mpt_prefix_parse(const char *text, struct mpt_prefix *out)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct mpt_prefix p;
	unsigned long plen;
	char *slash;
	int max;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	memset(&p, 0, sizeof(p));
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (parse_ip(buf, &p.family, p.addr.bytes) < 0)
		return -EINVAL;
	max = p.family == AF_INET ? 32 : 128;
	if (slash) {
		if (parse_small_uint(slash + 1, (unsigned long)max, &plen) < 0)
			return -EINVAL;
		p.plen = (uint8_t)plen;
	} else {
		p.plen = (uint8_t)max;
	}
	*out = p;
	return 0;
}

bool mpt_prefix_contains(const struct mpt_prefix *p, int family, const void *addr)
{
	struct mpt_prefix a, net = *p;

	if (family != p->family)
		return false;
	memset(&a, 0, sizeof(a));
	a.family = family;
	a.plen = p->plen;
	memcpy(a.addr.bytes, addr, family == AF_INET ? 4 : 16);
	mpt_prefix_mask(&a);
	mpt_prefix_mask(&net);
	return memcmp(a.addr.bytes, net.addr.bytes, 16) == 0;
}

int mpt_prefix_format(const struct mpt_prefix *p, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family, p->addr.bytes, ip, sizeof(ip)))
		return -EINVAL;
	return snprintf(buf, len, "%s/%u", ip, p->plen) < (int)len ? 0 : -ENOSPC;
}

int mpt_sockaddr_parse(const char *text, uint16_t default_port,
		       struct sockaddr_storage *out)
{
	char buf[INET6_ADDRSTRLEN + 16];
	const char *host, *port = NULL;
	unsigned long pv = default_port;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} a;
	int family;
	char *end;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	if (buf[0] == '[') {
		end = strchr(buf, ']');
		if (!end || (end[1] != '\0' && end[1] != ':'))
			return -EINVAL;
		*end = '\0';
		host = buf + 1;
		if (end[1] == ':')
			port = end + 2;
		if (inet_pton(AF_INET6, host, &a.v6) != 1)
			return -EINVAL;
		family = AF_INET6;
	} else {
		end = strrchr(buf, ':');
		if (end) {
			*end = '\0';
			port = end + 1;
		}
		host = buf;
		if (inet_pton(AF_INET, host, &a.v4) != 1)
			return -EINVAL;
		family = AF_INET;
	}
	if (port) {
		if (parse_small_uint(port, 65535, &pv) < 0 || pv == 0)
			return -EINVAL;
	} else if (!default_port) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)out;

		sin->sin_family = AF_INET;
		sin->sin_addr = a.v4;
		sin->sin_port = htons((uint16_t)pv);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)out;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = a.v6;
		sin6->sin6_port = htons((uint16_t)pv);
	}
	return 0;
}

int mpt_sockaddr_format(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	int n;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		n = snprintf(buf, len, "%s:%u", ip, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		n = snprintf(buf, len, "[%s]:%u", ip, ntohs(sin6->sin6_port));
	} else {
		return -EAFNOSUPPORT;
	}
	return n < (int)len ? 0 : -ENOSPC;
}
