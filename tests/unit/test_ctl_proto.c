// SPDX-License-Identifier: MIT
/* Control-protocol parser: good requests, every class of bad input, framing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/common.h>
#include <mptund/ctl.h>
#include "ctl_proto.h"

struct tcase {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int rc;
	size_t used;		/* expected bytes consumed */
	const char *msg;	/* substring of the error message */
};

static int run(const char *in, size_t len, struct mpt_ctl_req *req, size_t *used,
	       char *err, size_t errlen)
{
	return mpt_ctl_parse(in, len ? len : strlen(in), req, used, err, errlen);
}

static void test_good(void **state)
{
	static struct mpt_ctl_req req;
	const char *in = "cmd=path\npath=cell\ncost=5\n\ncmd=stats\n\n";
	char err[160];
	size_t used;

	assert_int_equal(run(in, 0, &req, &used, err, sizeof(err)), 0);
	assert_int_equal(used, strlen("cmd=path\npath=cell\ncost=5\n\n"));
	assert_int_equal(req.cmd, MPT_CTL_CMD_PATH);
	assert_int_equal(req.nkv, 2);
	assert_string_equal(mpt_ctl_req_get(&req, "path"), "cell");
	assert_string_equal(mpt_ctl_req_get(&req, "cost"), "5");
	assert_null(mpt_ctl_req_get(&req, "weight"));
	assert_true(mpt_ctl_cmds[req.cmd].write);

	/* the second request follows */
	assert_int_equal(run(in + used, 0, &req, &used, err, sizeof(err)), 0);
	assert_int_equal(req.cmd, MPT_CTL_CMD_STATS);
	assert_false(mpt_ctl_cmds[req.cmd].write);

	/* CRLF, version=1, prefix keys, empty value */
	in = "cmd=set\r\nversion=1\r\nsched.min_frac=0.3\r\ncc.gain=2\r\nsession=\r\n\r\n";
	assert_int_equal(run(in, 0, &req, &used, err, sizeof(err)), 0);
	assert_int_equal(used, strlen(in));
	assert_int_equal(req.nkv, 3);
	assert_string_equal(mpt_ctl_req_get(&req, "sched.min_frac"), "0.3");
	assert_string_equal(mpt_ctl_req_get(&req, "session"), "");
}

static void test_bad(void **state)
{
	static const char big_line[] = "cmd=stats\nscope="
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n\n";
	static const struct tcase cases[] = {
		{ "cmd=frob\n\n", 0, -EINVAL, 10, "unknown command 'frob'" },
		{ "path=x\n\n", 0, -EINVAL, 8, "expected cmd=NAME" },
		{ "\n", 0, -EINVAL, 1, "empty request" },
		{ "cmd=stats\ncolour=red\n\n", 0, -EINVAL, 22, "takes no key 'colour'" },
		{ "cmd=stats\nnoequals\n\n", 0, -EINVAL, 20, "'noequals' is not key=value" },
		{ "cmd=stats\n=v\n\n", 0, -EINVAL, 14, "is not key=value" },
		{ "cmd=stats\nScope=x\n\n", 0, -EINVAL, 19, "outside [a-z0-9_.]" },
		{ "cmd=stats\nscope=a\0b\n\n", 21, -EINVAL, 21, "NUL byte" },
		{ "cmd=stats\nscope=a\x01\n\n", 0, -EINVAL, 20, "control character 0x01" },
		{ "cmd=path\npath=a\npath=b\n\n", 0, -EINVAL, 24, "duplicate key 'path'" },
		{ "cmd=path\ncost=3\n\n", 0, -EINVAL, 17, "needs path=" },
		{ "cmd=watch\n\n", 0, -EINVAL, 11, "needs interval_ms=" },
		{ "cmd=set\nsched.=1\n\n", 0, -EINVAL, 18, "takes no key 'sched.'" },
		{ "cmd=stats\nversion=2\n\n", 0, -EPROTONOSUPPORT, 21, "version '2'" },
		{ big_line, 0, -E2BIG, sizeof(big_line) - 1, "line 2 is longer than 256" },
		/* incomplete: no blank line yet */
		{ "cmd=stats\n", 0, -EAGAIN, 0, "" },
		{ "cmd=stats\nscope=x", 0, -EAGAIN, 0, "" },
		{ "", 0, -EAGAIN, 0, "" },
	};
	static struct mpt_ctl_req req;
	char err[160];
	size_t used;

	for (size_t i = 0; i < MPT_ARRAY_SIZE(cases); i++) {
		const struct tcase *t = &cases[i];
		int rc = run(t->in, t->len, &req, &used, err, sizeof(err));

		print_message("case %zu: rc %d used %zu '%s'\n", i, rc, used, err);
		assert_int_equal(rc, t->rc);
		assert_int_equal(used, t->used);
		assert_non_null(strstr(err, t->msg));
	}
}

static void test_oversize_stream(void **state)
{
	static struct mpt_ctl_req req;
	static char buf[MPT_CTL_MAX_REQ + 64];
	char err[160];
	size_t used, n = 0;

	/* a partial line over the limit: unrecoverable (used 0) */
	memset(buf, 'a', 300);
	assert_int_equal(run(buf, 300, &req, &used, err, sizeof(err)), -E2BIG);
	assert_int_equal(used, 0);
	assert_non_null(strstr(err, "line 1 is longer than 256"));

	/* many short lines, no blank line within 4 KiB: unrecoverable */
	n = (size_t)snprintf(buf, sizeof(buf), "cmd=stats\n");
	while (n + 8 < sizeof(buf)) {
		memcpy(buf + n, "a=bbbbb\n", 8);
		n += 8;
	}
	assert_int_equal(run(buf, n, &req, &used, err, sizeof(err)), -E2BIG);
	assert_int_equal(used, 0);
	assert_non_null(strstr(err, "longer than 4096"));

	/* too many keys in a complete request: recoverable */
	n = (size_t)snprintf(buf, sizeof(buf), "cmd=set\n");
	for (int i = 0; i < MPT_CTL_MAX_KEYS + 2; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "sched.p%d=1\n", i);
	buf[n++] = '\n';
	assert_int_equal(run(buf, n, &req, &used, err, sizeof(err)), -E2BIG);
	assert_int_equal(used, n);
	assert_non_null(strstr(err, "more than 15 keys"));
}

static void test_req_u32(void **state)
{
	static struct mpt_ctl_req req;
	const char *in = "cmd=path\npath=a\ncost=12\nweight=-1\nsession= 3\n\n";
	char err[160];
	size_t used;
	uint32_t v;

	assert_int_equal(run(in, 0, &req, &used, err, sizeof(err)), 0);
	assert_int_equal(mpt_ctl_req_u32(&req, "cost", 0, 0, 100, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 12);
	assert_int_equal(mpt_ctl_req_u32(&req, "cost", 0, 0, 10, &v, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "cost: '12' is not a number in [0, 10]");
	assert_int_equal(mpt_ctl_req_u32(&req, "weight", 0, 0, 10, &v, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(mpt_ctl_req_u32(&req, "session", 0, 0, 10, &v, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(mpt_ctl_req_u32(&req, "admin", 7, 0, 10, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 7);
}

static void test_vocab(void **state)
{
	const struct mpt_ctl_key *k;

	k = mpt_ctl_key_find("session.0.path.1.srtt_us");
	assert_non_null(k);
	assert_int_equal(k->kind, MPT_CTL_GAUGE);
	k = mpt_ctl_key_find("session.12.reorder.released_timeout");
	assert_non_null(k);
	assert_int_equal(k->kind, MPT_CTL_COUNTER);
	assert_int_equal(mpt_ctl_key_find("daemon.role")->kind, MPT_CTL_INFO);
	assert_int_equal(mpt_ctl_key_find("session.0.sched_stat.cw_frac.1")->kind,
			 MPT_CTL_GAUGE);
	assert_int_equal(mpt_ctl_key_find("session.0.sched_stat.moves_total")->kind,
			 MPT_CTL_COUNTER);
	assert_int_equal(mpt_ctl_key_find("session.0.path.1.cc_stat.round_count_total")->kind,
			 MPT_CTL_COUNTER);
	assert_int_equal(mpt_ctl_key_find("session.0.path.1.cc_stat.pacing_gain")->kind,
			 MPT_CTL_GAUGE);
	assert_int_equal(mpt_ctl_key_find("session.0.drop.frame-overflow")->kind,
			 MPT_CTL_COUNTER);
	assert_int_equal(mpt_ctl_key_find("session.3.sched_switches")->kind, MPT_CTL_COUNTER);
	assert_null(mpt_ctl_key_find("session.x.path.1.srtt_us"));
	assert_null(mpt_ctl_key_find("session.0.path.1.srtt_usx"));
	assert_null(mpt_ctl_key_find("nothing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_oversize_stream),
		cmocka_unit_test(test_req_u32),
		cmocka_unit_test(test_vocab),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
