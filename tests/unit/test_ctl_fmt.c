// SPDX-License-Identifier: MIT
/*
 * Output backends of mptund-ctl on a fixed key=value list: golden text (aligned), JSON
 * checked by a small strict validator (RFC 8259 grammar) and for its structure, and the
 * Prometheus exposition checked by a validator of the format rules (HELP/TYPE once per
 * family and before its samples, families contiguous, name and label charsets, label
 * escaping, no duplicate labels, float values, counters named _total).
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl_fmt.h"

static const char *const sample_kv[][2] = {
	{ "daemon.role", "ue" },
	{ "daemon.uptime_ms", "1500" },
	{ "daemon.version", "0.1.0" },
	{ "daemon.tun_rx_pkts", "18446744073709551615" },
	{ "session.0.peer", "a\\b \"c\"\nd" },
	{ "session.0.queue_pkts", "0" },
	{ "session.0.path.0.name", "wifi" },
	{ "session.0.path.0.state", "up" },
	{ "session.0.path.0.srtt_us", "42000" },
	{ "session.0.path.0.pacing_rate_bytes_per_s", "125000" },
	{ "session.0.path.0.lost_pkts", "3" },
	{ "session.0.path.1.name", "cell" },
	{ "session.0.path.1.state", "down" },
	{ "session.0.path.1.srtt_us", "-0.5e3" },
	{ "session.0.path.1.lost_pkts", "0" },
	{ "session.0.sched_stat.cw_frac.0", "1" },
	{ "session.0.sched_stat.cw_frac.1", "0.53" },
	{ "session.0.sched_stat.moves_total", "4" },
	{ "session.0.reorder.released_timeout", "9" },
	{ "session.1.peer", "ue2" },
	{ "session.1.path.0.name", "dsl" },
	{ "session.1.path.0.srtt_us", "nan" },
	{ "odd.key", "01" },
	{ "odd.key.child", "1." },
};

static void fill(struct ctl_kvl *kv)
{
	memset(kv, 0, sizeof(*kv));
	for (size_t i = 0; i < sizeof(sample_kv) / sizeof(sample_kv[0]); i++)
		assert_int_equal(ctl_kvl_add(kv, sample_kv[i][0], sample_kv[i][1]), 0);
}

static char *render(const struct ctl_backend *be, const struct ctl_kvl *kv, bool sample)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (sample)
		assert_int_equal(be->sample(f, kv, 1700000000123.0), 0);
	else
		assert_int_equal(be->dump(f, kv), 0);
	fclose(f);
	return buf;
}

static void test_text(void **state)
{
	struct ctl_kvl kv = { 0 };
	char *out;

	ctl_kvl_add(&kv, "daemon.role", "ue");
	ctl_kvl_add(&kv, "session.0.path.1.srtt_us", "48000");
	ctl_kvl_add(&kv, "session.0.queue_pkts", "3");
	out = render(&ctl_backend_text, &kv, false);
	assert_string_equal(out,
		"daemon.role               ue\n"
		"session.0.path.1.srtt_us  48000\n"
		"session.0.queue_pkts      3\n");
	free(out);
	out = render(&ctl_backend_text, &kv, true);
	/* local time of day varies with TZ: check the rest */
	assert_int_equal(strlen(out), strlen("HH:MM:SS.123 daemon.role=ue "
					     "session.0.path.1.srtt_us=48000 session.0.queue_pkts=3\n"));
	assert_memory_equal(out + 8, ".123 daemon.role=ue", 19);
	free(out);
	ctl_kvl_free(&kv);
}

/* ---- a strict JSON validator ---- */
static const char *j_value(const char *p);

static const char *j_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *j_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *j_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *j_seq(const char *p, char close, bool object)
{
	p = j_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = j_string(j_ws(p));
			if (!p)
				return NULL;
			p = j_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = j_value(p);
		if (!p)
			return NULL;
		p = j_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *j_value(const char *p)
{
	p = j_ws(p);
	if (*p == '{')
		return j_seq(p, '}', true);
	if (*p == '[')
		return j_seq(p, ']', false);
	if (*p == '"')
		return j_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return j_number(p);
}

static bool json_valid(const char *s)
{
	const char *end = j_value(s);

	return end && *j_ws(end) == '\0';
}

static void test_json_validator(void **state)
{
	assert_true(json_valid("{\"a\":[1,-0.5e3,\"x\\\"\\u00e9\"],\"b\":{}}"));
	assert_false(json_valid("{\"a\":01}"));
	assert_false(json_valid("{\"a\":1.}"));
	assert_false(json_valid("{\"a\":\"\n\"}"));
	assert_false(json_valid("{\"a\":1,}"));
	assert_false(json_valid("{\"a\":1}{"));
}

static void test_json(void **state)
{
	struct ctl_kvl kv;
	char *out;

	fill(&kv);
	out = render(&ctl_backend_json, &kv, false);
	assert_true(json_valid(out));
	assert_string_equal(out,
		"{\"daemon\":{\"role\":\"ue\",\"uptime_ms\":1500,\"version\":\"0.1.0\","
		"\"tun_rx_pkts\":18446744073709551615},"
		"\"session\":[{\"peer\":\"a\\\\b \\\"c\\\"\\u000ad\",\"queue_pkts\":0,"
		"\"path\":[{\"name\":\"wifi\",\"state\":\"up\",\"srtt_us\":42000,"
		"\"pacing_rate_bytes_per_s\":125000,\"lost_pkts\":3},"
		"{\"name\":\"cell\",\"state\":\"down\",\"srtt_us\":-0.5e3,\"lost_pkts\":0}],"
		"\"sched_stat\":{\"cw_frac\":[1,0.53],\"moves_total\":4},"
		"\"reorder\":{\"released_timeout\":9}},"
		"{\"peer\":\"ue2\",\"path\":[{\"name\":\"dsl\",\"srtt_us\":\"nan\"}]}],"
		"\"odd\":{\"key\":{\"_value\":\"01\",\"child\":\"1.\"}}}\n");
	free(out);
	out = render(&ctl_backend_json, &kv, true);
	assert_true(json_valid(out));
	assert_memory_equal(out, "{\"time_ms\":1700000000123,\"daemon\":{", 35);
	free(out);
	ctl_kvl_free(&kv);
}

/* ---- a validator of the Prometheus text format ---- */
static bool metric_name(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
			return false;
	return true;
}

#define MAX_FAM 64

struct prom_state {
	char fams[MAX_FAM][128];	/* families seen, in order */
	char types[MAX_FAM][16];
	unsigned nfam;
	int cur;			/* family whose samples are current */
	bool help_seen;
};

static int fam_find(struct prom_state *st, const char *name)
{
	for (unsigned i = 0; i < st->nfam; i++)
		if (!strcmp(st->fams[i], name))
			return (int)i;
	return -1;
}

/* Returns NULL if the exposition is valid, else what is wrong. */
static const char *prom_check(const char *text, char *why, size_t len)
{
	struct prom_state st = { .cur = -1 };
	char line[2048];
	unsigned ln = 0;

	for (const char *p = text; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t n;
		char name[128];

		if (!nl)
			return "no final newline";
		n = (size_t)(nl - p);
		assert_true(n < sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		ln++;
		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)) {
			bool help = line[2] == 'H';
			size_t l = strcspn(line + 7, " ");
			int f;

			snprintf(name, sizeof(name), "%.*s", (int)l, line + 7);
			if (!metric_name(name, l))
				return snprintf(why, len, "%u: bad name", ln), why;
			f = fam_find(&st, name);
			if (help) {
				if (f >= 0)
					return snprintf(why, len, "%u: second HELP %s", ln, name), why;
				assert_true(st.nfam < MAX_FAM);
				snprintf(st.fams[st.nfam], sizeof(st.fams[0]), "%s", name);
				st.types[st.nfam][0] = '\0';
				st.cur = (int)st.nfam++;
				continue;
			}
			if (f < 0 || f != st.cur || st.types[f][0])
				return snprintf(why, len, "%u: TYPE out of place", ln), why;
			snprintf(st.types[f], sizeof(st.types[0]), "%s", line + 8 + l);
			if (strcmp(st.types[f], "counter") && strcmp(st.types[f], "gauge"))
				return snprintf(why, len, "%u: type '%s'", ln, st.types[f]), why;
			if (!strcmp(st.types[f], "counter") &&
			    (strlen(name) < 6 || strcmp(name + strlen(name) - 6, "_total")))
				return snprintf(why, len, "%u: counter %.40s without _total", ln, name), why;
			continue;
		}
		if (line[0] == '#')
			continue;
		{
			size_t l = strcspn(line, "{ ");
			const char *q = line + l;
			char labels[16][64];
			unsigned nl2 = 0;
			char *end;

			snprintf(name, sizeof(name), "%.*s", (int)l, line);
			if (!metric_name(name, l))
				return snprintf(why, len, "%u: bad metric name", ln), why;
			if (st.cur < 0 || strcmp(st.fams[st.cur], name) || !st.types[st.cur][0])
				return snprintf(why, len, "%u: sample of %.40s outside its family", ln,
						name), why;
			if (*q == '{') {
				q++;
				while (*q != '}') {
					size_t ll = strcspn(q, "=");

					if (!ll || !(isalpha((unsigned char)q[0]) || q[0] == '_') ||
					    !strncmp(q, "__", 2))
						return snprintf(why, len, "%u: bad label name", ln), why;
					for (size_t i = 0; i < ll; i++)
						if (!(isalnum((unsigned char)q[i]) || q[i] == '_'))
							return snprintf(why, len, "%u: label char", ln), why;
					for (unsigned i = 0; i < nl2; i++)
						if (strlen(labels[i]) == ll && !strncmp(labels[i], q, ll))
							return snprintf(why, len, "%u: duplicate label", ln), why;
					snprintf(labels[nl2++], sizeof(labels[0]), "%.*s", (int)ll, q);
					q += ll + 1;
					if (*q++ != '"')
						return snprintf(why, len, "%u: unquoted label", ln), why;
					while (*q != '"') {
						if (!*q || *q == '\n')
							return snprintf(why, len, "%u: open label", ln), why;
						if (*q == '\\') {
							q++;
							if (*q != '\\' && *q != '"' && *q != 'n')
								return snprintf(why, len, "%u: escape", ln), why;
						}
						q++;
					}
					q++;
					if (*q == ',')
						q++;
					else if (*q != '}')
						return snprintf(why, len, "%u: label list", ln), why;
				}
				q++;
			}
			if (*q++ != ' ')
				return snprintf(why, len, "%u: no space before value", ln), why;
			strtod(q, &end);
			if (end == q || *end)
				return snprintf(why, len, "%u: value '%s'", ln, q), why;
		}
	}
	return NULL;
}

static void test_prom_validator(void **state)
{
	char why[256];

	assert_null(prom_check("# HELP a_total x\n# TYPE a_total counter\na_total{l=\"\\\"\"} 1\n",
			       why, sizeof(why)));
	assert_non_null(prom_check("a 1\n", why, sizeof(why)));
	assert_non_null(prom_check("# HELP a x\n# TYPE a counter\na 1\n", why, sizeof(why)));
	assert_non_null(prom_check("# HELP a x\n# TYPE a gauge\na{l=\"x\",l=\"y\"} 1\n",
				   why, sizeof(why)));
	assert_non_null(prom_check("# HELP a x\n# TYPE a gauge\na{l=\"\\t\"} 1\n", why,
				   sizeof(why)));
	assert_non_null(prom_check("# HELP a x\n# TYPE a gauge\n# HELP b x\n# TYPE b gauge\n"
				   "b 1\na 1\n", why, sizeof(why)));
	assert_non_null(prom_check("# HELP a-b x\n# TYPE a-b gauge\n", why, sizeof(why)));
}

static void test_prom(void **state)
{
	struct ctl_kvl kv;
	char why[256], *out;
	const char *bad;

	fill(&kv);
	out = render(&ctl_backend_prom, &kv, false);
	bad = prom_check(out, why, sizeof(why));
	if (bad)
		print_message("%s\n%s\n", out, bad);
	if (getenv("SHOW"))
		fputs(out, stderr);
	assert_null(bad);
	assert_non_null(strstr(out,
		"# HELP mptund_path_srtt_seconds smoothed round-trip time\n"
		"# TYPE mptund_path_srtt_seconds gauge\n"
		"mptund_path_srtt_seconds{session=\"0\",peer=\"a\\\\b \\\"c\\\"\\nd\",path=\"wifi\"} 0.042\n"
		"mptund_path_srtt_seconds{session=\"0\",peer=\"a\\\\b \\\"c\\\"\\nd\",path=\"cell\"} -0.0005\n"));
	assert_non_null(strstr(out, "# TYPE mptund_daemon_uptime_seconds gauge\n"
			       "mptund_daemon_uptime_seconds 1.5\n"));
	assert_non_null(strstr(out, "mptund_daemon_tun_rx_pkts_total 18446744073709551615\n"));
	assert_non_null(strstr(out, "mptund_path_pacing_rate_bytes_per_second{session=\"0\","));
	assert_non_null(strstr(out, "# TYPE mptund_path_lost_pkts_total counter\n"));
	assert_non_null(strstr(out, "# TYPE mptund_session_sched_stat_moves_total counter\n"));
	assert_non_null(strstr(out, "mptund_session_sched_stat_cw_frac{session=\"0\",peer=\"a\\\\b "
			       "\\\"c\\\"\\nd\",path=\"cell\"} 0.53\n"));
	assert_non_null(strstr(out, "mptund_session_reorder_released_timeout_total{session=\"0\","));
	assert_non_null(strstr(out, "mptund_path_info{session=\"0\",peer=\"a\\\\b \\\"c\\\"\\nd\","
			       "path=\"wifi\",name=\"wifi\",state=\"up\"} 1\n"));
	assert_non_null(strstr(out, "mptund_daemon_info{role=\"ue\",version=\"0.1.0\"} 1\n"));
	/* a non-numeric value of a gauge key is a label, never a bad sample */
	assert_non_null(strstr(out, "path=\"dsl\",name=\"dsl\",srtt_us=\"nan\"} 1\n"));
	free(out);
	ctl_kvl_free(&kv);
}

static void test_reply_parse(void **state)
{
	static const char text[] = "version=1\na.b=1\nmessage=oops\nerrno=22\n\nversion=1\n";
	struct ctl_kvl kv = { 0 };
	char msg[64];
	int err_no;
	long used;

	used = ctl_reply_parse(text, sizeof(text) - 1, &kv, &err_no, msg, sizeof(msg));
	assert_int_equal(used, 39);
	assert_int_equal(err_no, 22);
	assert_string_equal(msg, "oops");
	assert_string_equal(ctl_kvl_get(&kv, "a.b"), "1");
	ctl_kvl_free(&kv);
	assert_int_equal(ctl_reply_parse(text, 20, &kv, &err_no, msg, sizeof(msg)), 0);
	ctl_kvl_free(&kv);
	assert_int_equal(ctl_reply_parse("hello\n", 6, &kv, &err_no, msg, sizeof(msg)), -EPROTO);
	assert_int_equal(ctl_reply_parse("version=1\nerrno=x\n\n", 19, &kv, &err_no, msg,
					 sizeof(msg)), -EPROTO);
	ctl_kvl_free(&kv);
	assert_true(ctl_is_number("-0.5e3"));
	assert_false(ctl_is_number("01"));
	assert_false(ctl_is_number("inf"));
	assert_false(ctl_is_number(""));
	assert_false(ctl_is_number("1 "));
}

/* Path indices (prom labels) and ports/indices (mptund-ctl arguments) share one check. */
static void test_is_digits(void **state)
{
	(void)state;
	assert_true(ctl_is_digits("0"));
	assert_true(ctl_is_digits("4294967295"));
	assert_false(ctl_is_digits(""));
	assert_false(ctl_is_digits("-1"));
	assert_false(ctl_is_digits("1a"));
	assert_false(ctl_is_digits(" 1"));
	assert_false(ctl_is_digits("rtt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json_validator),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_prom_validator),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_reply_parse),
		cmocka_unit_test(test_is_digits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
