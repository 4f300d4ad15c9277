// SPDX-License-Identifier: MIT
/*
 * Steering rules as values: matching (rule.c), specs printed and parsed back, rule
 * tables (ruleset.c), the RULES frame, a pushed set as text and the rules' statistics
 * in Prometheus. A session's rule state (flow cache, queues, push, control) is
 * test_session_rules.c's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include <mptund/common.h>
#include <mptund/wire.h>

#include "ctl_fmt.h"
#include "ctl_kv.h"
#include "rule.h"
#include "ruleset.h"

/* ---- helpers ---- */

static struct mpt_rule parse_ok(const char *spec)
{
	struct mpt_rule r;
	char err[256];

	if (mpt_rule_parse(&r, spec, strlen(spec), err, sizeof(err)) < 0)
		fail_msg("'%s' should parse: %s", spec, err);
	return r;
}

static void key4(struct mpt_flow_key *k, const char *src, const char *dst, int proto,
		 uint16_t sport, uint16_t dport, uint8_t dscp)
{
	memset(k, 0, sizeof(*k));
	k->family = AF_INET;
	k->proto = (uint8_t)proto;
	k->dscp = dscp;
	k->ports = proto == 6 || proto == 17;
	k->sport = sport;
	k->dport = dport;
	inet_pton(AF_INET, src, k->src);
	inet_pton(AF_INET, dst, k->dst);
}

/* ---- rule matching ---- */

static void test_match(void **state)
{
	struct mpt_rule voip = parse_ok("Name=voip Protocol=udp DestinationPort=5060,"
					"10000-20000 DSCP=46 Scheduler=minrtt");
	struct mpt_rule net = parse_ok("Name=net Destination=203.0.113.0/24,2001:db8::/32 "
				       "Source=10.7.0.0/16 Scheduler=cpf");
	struct mpt_rule ping = parse_ok("Name=ping Protocol=icmp Scheduler=rr");
	struct mpt_flow_key k;

	key4(&k, "10.7.0.2", "198.51.100.9", 17, 40000, 5060, 46);
	assert_true(mpt_rule_match(&voip, &k, false));
	k.dport = 15000;
	assert_true(mpt_rule_match(&voip, &k, false));
	k.dport = 20001;
	assert_false(mpt_rule_match(&voip, &k, false));	/* past the range */
	k.dport = 5060;
	k.dscp = 0;
	assert_false(mpt_rule_match(&voip, &k, false));	/* DSCP */
	k.dscp = 46;
	k.proto = 6;
	assert_false(mpt_rule_match(&voip, &k, false));	/* protocol */
	/* the anchor's downlink: the mirror image matches */
	key4(&k, "198.51.100.9", "10.7.0.2", 17, 5060, 40000, 46);
	assert_true(mpt_rule_match(&voip, &k, true));
	assert_false(mpt_rule_match(&voip, &k, false));

	key4(&k, "10.7.3.4", "203.0.113.77", 6, 1, 443, 0);
	assert_true(mpt_rule_match(&net, &k, false));
	key4(&k, "10.8.3.4", "203.0.113.77", 6, 1, 443, 0);
	assert_false(mpt_rule_match(&net, &k, false));	/* source */
	key4(&k, "10.7.3.4", "203.0.114.1", 6, 1, 443, 0);
	assert_false(mpt_rule_match(&net, &k, false));	/* destination */
	memset(&k, 0, sizeof(k));
	k.family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:ffff::1", k.dst);
	assert_false(mpt_rule_match(&net, &k, false));	/* the source list is IPv4 only */

	key4(&k, "10.7.0.2", "192.0.2.1", 1, 0, 0, 0);
	assert_true(mpt_rule_match(&ping, &k, false));
	k.proto = 58;
	assert_true(mpt_rule_match(&ping, &k, false));	/* icmp: v4 and v6 */
	/* no ports read (an ICMP, a later fragment): a rule with ports does not match */
	key4(&k, "10.7.0.2", "198.51.100.9", 17, 0, 0, 46);
	k.ports = false;
	assert_false(mpt_rule_match(&voip, &k, false));
}

static void test_prefix_bits(void **state)
{
	struct mpt_rule r = parse_ok("Name=odd Destination=10.1.2.128/25 Scheduler=rr");
	struct mpt_flow_key k;

	key4(&k, "1.1.1.1", "10.1.2.200", 6, 1, 2, 0);
	assert_true(mpt_rule_match(&r, &k, false));
	key4(&k, "1.1.1.1", "10.1.2.127", 6, 1, 2, 0);
	assert_false(mpt_rule_match(&r, &k, false));
	r = parse_ok("Name=all Destination=0.0.0.0/0 Scheduler=rr");
	assert_true(mpt_rule_match(&r, &k, false));
}

/* The printed spec parses back to the same rule; bad specs quote the value. */
static void test_spec(void **state)
{
	static const struct {
		const char *spec, *err;
	} bad[] = {
		{ "Name=x Protocol=tcpp Scheduler=rr", "'tcpp'" },
		{ "Name=x DestinationPort=99999 Scheduler=rr", "'99999'" },
		{ "Name=x DestinationPort=20-10 Scheduler=rr", "'20-10'" },
		{ "Name=x DSCP=64 Scheduler=rr", "'64'" },
		{ "Name=x Destination=10.0.0.0/40 Scheduler=rr", "'10.0.0.0/40'" },
		{ "Name=x Scheduler=nosuch", "'nosuch'" },
		{ "Name=x Scheduler=acpf min_frac=2", "'2'" },
		{ "Name=x Scheduler=rr bogus=1", "bogus" },
		{ "Name=x Protocol=udp", "Scheduler: missing" },
		{ "Protocol=udp Scheduler=rr", "Name: missing" },
		{ "Name=x junk Scheduler=rr", "'junk'" },
		{ "Name=x Protocol=icmp DestinationPort=1 Scheduler=rr", "'icmp'" },
		{ "Name=waytoolongarulename Scheduler=rr", "'waytoolongarulename'" },
		{ "Name=x Scheduler=rr Ordered=maybe", "'maybe'" },
	};
	const char *spec = "Name=v Peer=phone Destination=198.51.100.0/24,2001:db8::/48 "
			   "Source=10.7.0.2/32 Protocol=udp DestinationPort=5060,10000-20000 "
			   "SourcePort=1024-65535 DSCP=10-14,46 Scheduler=acpf min_frac=0.5";
	struct mpt_rule r = parse_ok(spec), again;
	char out[MPT_RULE_SPEC_MAX], err[256];

	assert_true(mpt_rule_format(&r, out, sizeof(out)) > 0);
	assert_string_equal(out, spec);
	again = parse_ok(out);
	assert_true(mpt_rule_equal(&r, &again));
	/* Ordered=no prints (and parses back); the default yes is not printed */
	r = parse_ok("Name=voice Protocol=udp Scheduler=redundant Ordered=no");
	assert_true(r.unordered);
	assert_true(mpt_rule_format(&r, out, sizeof(out)) > 0);
	assert_string_equal(out, "Name=voice Protocol=udp Scheduler=redundant Ordered=no");
	assert_false(parse_ok("Name=v Scheduler=rr Ordered=yes").unordered);
	for (size_t i = 0; i < MPT_ARRAY_SIZE(bad); i++) {
		struct mpt_rule x;

		if (mpt_rule_parse(&x, bad[i].spec, strlen(bad[i].spec), err,
				   sizeof(err)) != -EINVAL)
			fail_msg("'%s' should be refused", bad[i].spec);
		if (!strstr(err, bad[i].err))
			fail_msg("'%s': message '%s' does not quote %s", bad[i].spec, err,
				 bad[i].err);
	}
}

/* ---- rule tables ---- */

static void test_ruleset_ops(void **state)
{
	struct mpt_ruleset set;
	struct mpt_rule a = parse_ok("Name=a Scheduler=rr"), b = parse_ok("Name=b Scheduler=rr");
	struct mpt_rule c = parse_ok("Name=c Scheduler=cpf");
	char err[128];
	uint32_t gen, ida;

	mpt_ruleset_init(&set, 0);
	gen = set.gen;
	assert_int_equal(mpt_ruleset_add(&set, &a, 99, err, sizeof(err)), 0);
	assert_int_equal(mpt_ruleset_add(&set, &b, 0, err, sizeof(err)), 0);
	assert_int_equal(mpt_ruleset_add(&set, &c, 1, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.r[0].rule.name, "b");
	assert_string_equal(set.r[1].rule.name, "c");
	assert_string_equal(set.r[2].rule.name, "a");
	assert_true(set.gen != gen);
	assert_int_equal(mpt_ruleset_add(&set, &a, 0, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "'a'"));
	ida = set.r[2].id;
	gen = set.gen;
	assert_int_equal(mpt_ruleset_move(&set, "a", 0, err, sizeof(err)), 0);
	assert_string_equal(set.r[0].rule.name, "a");
	assert_int_equal(set.r[0].id, ida);		/* moving keeps the id */
	assert_true(set.gen != gen);
	assert_int_equal(mpt_ruleset_del(&set, "c", err, sizeof(err)), 0);
	assert_int_equal(set.n, 2);
	assert_int_equal(mpt_ruleset_del(&set, "zz", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'zz'"));
	/* replace: an unchanged rule keeps its id and counters, a changed one does not */
	set.r[0].st.pkts = 7;
	{
		struct mpt_rule nr[2] = { a, parse_ok("Name=b Scheduler=minrtt") };
		uint32_t idb = set.r[1].id;

		assert_int_equal(mpt_ruleset_replace(&set, nr, 2), 0);
		assert_int_equal(set.r[0].id, ida);
		assert_int_equal(set.r[0].st.pkts, 7);
		assert_true(set.r[1].id != idb);
	}
	mpt_ruleset_free(&set);
}

/* ---- RULES frames and pushed sets ---- */

/* RULES frames: what the encoder writes the decoder reads; bad bodies refused. */
static void test_rules_frame(void **state)
{
	static const struct {
		const char *what;
		uint8_t body[8];
		size_t len;
	} bad[] = {
		{ "seq 0", { 0, 0, 0, 0, 0, 1, 'x' }, 7 },
		{ "index past count", { 0, 0, 0, 9, 2, 2 }, 6 },
		{ "count past 16", { 0, 0, 0, 9, 0, 17 }, 6 },
		{ "ack with text", { 0, 0, 0, 9, 0, 0, 'x' }, 7 },
		{ "ack with index", { 0, 0, 0, 9, 1, 0 }, 6 },
		{ "short", { 0, 0, 0, 9, 0 }, 5 },
	};
	const char *text = "Name=a Scheduler=rr\n";
	struct mpt_rules_frag in = { .seq = 77, .index = 1, .count = 3,
				     .text = (const uint8_t *)text, .len = 20 };
	uint8_t buf[2048];
	const uint8_t *pos = buf;
	struct mpt_frame f;
	int n = mpt_frame_rules_encode(buf, sizeof(buf), &in);

	assert_int_equal(n, 3 + 6 + 20);
	assert_int_equal(mpt_frame_next(&pos, buf + n, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_RULES);
	assert_int_equal(f.u.rules.seq, 77);
	assert_int_equal(f.u.rules.index, 1);
	assert_int_equal(f.u.rules.count, 3);
	assert_memory_equal(f.u.rules.text, text, 20);
	for (size_t i = 0; i < MPT_ARRAY_SIZE(bad); i++) {
		buf[0] = MPT_FRAME_RULES;
		buf[1] = 0;
		buf[2] = (uint8_t)bad[i].len;
		memcpy(buf + 3, bad[i].body, bad[i].len);
		pos = buf;
		if (mpt_frame_next(&pos, buf + 3 + bad[i].len, &f) != -EBADMSG ||
		    f.reason != MPT_WIRE_RULES_BAD)
			fail_msg("%s: not refused", bad[i].what);
	}
	/* too long a fragment: neither written nor read */
	in.len = MPT_RULES_FRAG_MAX + 1;
	assert_int_equal(mpt_frame_rules_encode(buf, sizeof(buf), &in), -EINVAL);
	assert_string_equal(mpt_wire_strerror(MPT_WIRE_RULES_BAD), "rules-bad");
}

/* A pushed set as text: lines of specs; refusals name the rule and quote the value. */
static void test_parse_set(void **state)
{
	static struct mpt_rule out[4];
	const char *good = "\nName=a Protocol=udp Scheduler=rr\n  \nName=b DSCP=46 "
			   "Scheduler=minrtt";
	char err[320];
	unsigned n;

	assert_int_equal(mpt_rule_parse_set(good, strlen(good), out, 4, &n, err,
					    sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[1].name, "b");
	assert_int_equal(mpt_rule_parse_set("Name=a Scheduler=rr\nName=a Scheduler=rr", 39,
					    out, 4, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'a' twice"));
	assert_int_equal(mpt_rule_parse_set("Name=a Scheduler=rr\nName=b Scheduler=zz", 39,
					    out, 4, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rule 2: Scheduler: 'zz'"));
	assert_int_equal(mpt_rule_parse_set("Name=a Peer=x Scheduler=rr", 26, out, 4, &n, err,
					    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'x'"));
	assert_int_equal(mpt_rule_parse_set("Name=a Scheduler=rr\nName=b Scheduler=rr", 39,
					    out, 1, &n, err, sizeof(err)), -EINVAL);
	assert_int_equal(mpt_rule_parse_set("", 0, out, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
}

/* The rules' statistics in Prometheus: a rule label, per-path counters with a path
 * label, the name and scheduler as an info metric. */
static void test_prometheus(void **state)
{
	struct ctl_kvl kv = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(ctl_kvl_add(&kv, "rule.0.name", "voip"), 0);
	assert_int_equal(ctl_kvl_add(&kv, "rule.0.scheduler", "minrtt"), 0);
	assert_int_equal(ctl_kvl_add(&kv, "rule.0.pkts", "5"), 0);
	assert_int_equal(ctl_kvl_add(&kv, "rule.0.path_pkts.1", "3"), 0);
	assert_int_equal(ctl_kvl_add(&kv, "rule_default.pkts", "7"), 0);
	assert_int_equal(ctl_backend_prom.dump(f, &kv), 0);
	fclose(f);
	if (!strstr(buf, "mptund_rule_pkts_total{rule=\"0\"} 5\n") ||
	    !strstr(buf, "mptund_rule_path_pkts_total{rule=\"0\",path=\"1\"} 3\n") ||
	    !strstr(buf, "mptund_rule_default_pkts_total 7\n") ||
	    !strstr(buf, "name=\"voip\"") || !strstr(buf, "# TYPE mptund_rule_pkts_total counter"))
		fail_msg("Prometheus output:\n%s", buf);
	free(buf);
	ctl_kvl_free(&kv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_prefix_bits),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_ruleset_ops),
		cmocka_unit_test(test_rules_frame),
		cmocka_unit_test(test_parse_set),
		cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
