// SPDX-License-Identifier: MIT
/*
 * mptund-ctl end to end against the fake daemon (tests/unit/support/ctl_fake.c) served
 * by the real control server in a forked child: golden text views, exit codes, option
 * handling, instance discovery, and that write commands reach the daemon.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctl_cmds.h"
#include "ctl_fake.h"
#include "ctl_server.h"

static char dir[64], sock[128];
static pid_t server_pid;
static unsigned fake_sessions;	/* the second group: an anchor with this many */

static void serve(void)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct mpt_ctl_server srv;
	struct fake_daemon d;
	char err[256];

	ctl_fake_init(&d);
	d.nsessions = fake_sessions;
	d.page_max = 100;
	if (mpt_ctl_server_open(&srv, loop, sock, NULL, &ctl_fake_handlers, &d, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		_exit(1);
	}
	ev_run(loop, 0);
	_exit(0);
}

static bool listening(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t len = strlen(path);
	bool ok;

	if (len >= sizeof(sun.sun_path)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	memcpy(sun.sun_path, path, len + 1);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/ctlcli.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/ue.sock", dir);
	server_pid = fork();
	if (server_pid == 0)
		serve();
	/* the socket file exists from bind(), answers from listen(): wait for that */
	for (int i = 0; i < 2000 && !listening(sock); i++)
		usleep(1000);
	setenv("MPTUND_RUN_DIR", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	kill(server_pid, SIGTERM);
	waitpid(server_pid, NULL, 0);
	unlink(sock);
	rmdir(dir);
	return 0;
}

struct run {
	int rc;
	char *out, *err;
	size_t outlen, errlen;
};

static void run(struct run *r, ...)
{
	char *argv[16] = { "mptund-ctl" };
	int argc = 1;
	FILE *o, *e;
	va_list ap;

	va_start(ap, r);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	free(r->out);
	free(r->err);
	o = open_memstream(&r->out, &r->outlen);
	e = open_memstream(&r->err, &r->errlen);
	r->rc = ctl_main(argc, argv, o, e);
	fclose(o);
	fclose(e);
}

static struct run r;

static void test_status_golden(void **state)
{
	run(&r, "status", NULL);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out,
		"role      ue\n"
		"instance  test\n"
		"version   0.1.0\n"
		"uptime    1h02m03s\n"
		"sessions  1\n"
		"\n"
		"session 0  peer anchor \"1\"  state established  sched acpf  queue 3 pkts\n"
		"  PATH  STATE  RTT      MIN RTT  CWND       IN FLIGHT  PACING       CC STATE\n"
		"  wifi  up     12.3 ms  10.3 ms  128.0 KiB  4.0 KiB    25.0 Mbit/s  probe_bw\n"
		"  cell  up     48.0 ms  46.0 ms  64.0 KiB   4.0 KiB    25.0 Mbit/s  probe_bw\n");
}

static void test_paths_sessions_golden(void **state)
{
	run(&r, "paths", NULL);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out,
		"SESSION  PEER        PATH  STATE  COST  SRTT     RTTVAR  MIN RTT  CWND       "
		"IN FLIGHT  BTLBW  LOST\n"
		"0        anchor \"1\"  wifi  up     1     12.3 ms  -       10.3 ms  128.0 KiB  "
		"4.0 KiB    -      0\n"
		"0        anchor \"1\"  cell  up     10    48.0 ms  -       46.0 ms  64.0 KiB   "
		"4.0 KiB    -      5\n"
		"\n"
		"SESSION  PATH  TX           TX ACKS       RX           RX ACKS     ACKS VIA  "
		"ACKS AWAY  ACK/RX BYTES\n"
		"0        wifi  16.0 kbit/s  0 bit/s       16.0 Mbit/s  0 bit/s     cell      "
		"700        0.0%\n"
		"0        cell  1.0 Mbit/s   120.0 kbit/s  30.0 Mbit/s  4.0 kbit/s  cell      "
		"0          1.0%\n");
	run(&r, "sessions", NULL);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out,
		"SESSION  PEER        STATE        SCHED  PATHS  QUEUE  TX       RX  AGE\n"
		"0        anchor \"1\"  established  acpf   2      3      1.4 MiB  -   -\n");
}

static void test_sched_and_set(void **state)
{
	run(&r, "sched", NULL);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out,
		"scheduler  acpf\n"
		"           fake cheapest path first\n"
		"\n"
		"PARAM     VALUE  RANGE      DEFAULT  HELP\n"
		"min_frac  0.1    [0.01, 1]  0.1      lowest live-window fraction (ACPF sec. 3)\n"
		"probe_ms  10     [1, 1000]  10       probe interval\n");
	run(&r, "set", "sched.min_frac", "0.4", NULL);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out, "sched.min_frac  0.4\n");
	run(&r, "sched", "--json", NULL);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "\"min_frac\":{\"value\":0.4,\"type\":\"double\""));
	run(&r, "set", "sched.min_frac", "7", NULL);
	assert_int_equal(r.rc, 1);
	assert_string_equal(r.err, "mptund-ctl: set: min_frac: '7' is out of range [0.01, 1] "
			    "(errno 34: Numerical result out of range)\n");
	run(&r, "set", "sched", "rr", "--session", "0", NULL);
	assert_int_equal(r.rc, 0);
	run(&r, "sessions", "--json", NULL);
	assert_string_equal(r.out, "{\"session\":[{\"peer\":\"anchor \\\"1\\\"\",\"state\":"
			    "\"established\",\"sched\":\"rr\",\"queue_pkts\":3,\"tx_bytes\":1500000,"
			    "\"reorder\":{\"released_timeout\":2},\"sched_stat\":{\"cw_frac\":[1,0.53],"
			    "\"moves_total\":7}}]}\n");
	run(&r, "set", "sched", "nosuch", NULL);
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.err, "unknown scheduler 'nosuch'"));
	run(&r, "sched", "list", NULL);
	assert_int_equal(r.rc, 0);
	assert_memory_equal(r.out, "NAME", 4);
	assert_non_null(strstr(r.out, "\nrr "));
}

static void test_path_reload(void **state)
{
	run(&r, "path", "cell", "down", NULL);
	assert_int_equal(r.rc, 0);
	run(&r, "path", "cell", "cost", "20", NULL);
	assert_int_equal(r.rc, 0);
	run(&r, "stats", "session.0.path.1", NULL);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "session.0.path.1.state                    admin_down\n"));
	assert_non_null(strstr(r.out, "session.0.path.1.cost                     20\n"));
	run(&r, "path", "dsl", "up", NULL);
	assert_int_equal(r.rc, 1);
	run(&r, "reload", NULL);
	assert_int_equal(r.rc, 0);
}

static void test_usage_and_connect_errors(void **state)
{
	static const char *const bad[][4] = {
		{ "bogus" }, { "path", "cell" }, { "path", "cell", "cost", "x" },
		{ "path", "cell", "sideways" }, { "set", "colour", "red" }, { "set", "sched" },
		{ "watch", "--interval", "5" }, { "metrics", "--json" }, { "stats", "a", "b" },
		{ "reload", "--session", "1" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&r, bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL);
		print_message("%s -> %d %s", bad[i][0], r.rc, r.err);
		assert_int_equal(r.rc, 2);
	}
	run(&r, NULL);
	assert_int_equal(r.rc, 2);
	run(&r, "-s", "/nonexistent/x.sock", "status", NULL);
	assert_int_equal(r.rc, 3);
	assert_string_equal(r.err, "mptund-ctl: cannot connect to '/nonexistent/x.sock': "
			    "No such file or directory\n");
	run(&r, "-i", "nosuch", "status", NULL);
	assert_int_equal(r.rc, 3);
	run(&r, "-i", "ue", "status", NULL);		/* explicit instance */
	assert_int_equal(r.rc, 0);
	run(&r, "-s", sock, "status", NULL);
	assert_int_equal(r.rc, 0);
	run(&r, "-i", "../x", "status", NULL);
	assert_int_equal(r.rc, 2);
	/* two instances and no -i: usage error naming them */
	{
		char other[160];
		FILE *f;

		snprintf(other, sizeof(other), "%s/anchor.sock", dir);
		f = fopen(other, "w");
		fclose(f);
		run(&r, "status", NULL);
		unlink(other);
		assert_int_equal(r.rc, 2);
		assert_non_null(strstr(r.err, "choose one with -i NAME"));
	}
	run(&r, "--version", NULL);
	assert_int_equal(r.rc, 0);
}

static void test_metrics_watch(void **state)
{
	run(&r, "metrics", NULL);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "# TYPE mptund_path_srtt_seconds gauge\n"
			       "mptund_path_srtt_seconds{session=\"0\",peer=\"anchor \\\"1\\\"\","
			       "path=\"wifi\"} 0.0123\n"));
	run(&r, "stats", "--json", NULL);
	assert_int_equal(r.rc, 0);
	assert_memory_equal(r.out, "{\"daemon\":{\"version\":\"0.1.0\"", 28);
}

static int setup_many(void **state)
{
	fake_sessions = 250;
	return setup(state);
}

static unsigned count_lines(const char *s, const char *prefix)
{
	unsigned n = 0;
	size_t pl = strlen(prefix);

	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, prefix, pl);
	return n;
}

/* 250 sessions, 100 per reply: the CLI follows page.next and shows every one once. */
static void test_sessions_paged(void **state)
{
	run(&r, "sessions", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(count_lines(r.out, ""), 251);		/* header + 250 rows */
	assert_memory_equal(r.out, "SESSION  PEER   STATE        SCHED   PATHS  QUEUE  TX", 52);
	assert_non_null(strstr(r.out, "\n0        ue0    established  minrtt  1/2    0      0 B        -   -\n"));
	assert_non_null(strstr(r.out, "\n249      ue249  established  minrtt  2/2    0      "
				      "498.0 KiB  -   -\n"));
	assert_null(strstr(r.out, "more from"));
	/* a page of the user's choice, across the daemon's own page boundary */
	run(&r, "sessions", "offset=90", "limit=20", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(count_lines(r.out, ""), 22);		/* header + 20 + footer */
	assert_non_null(strstr(r.out, "\n90       ue90 "));
	assert_non_null(strstr(r.out, "\n109      ue109 "));
	assert_null(strstr(r.out, "\n110 "));
	assert_non_null(strstr(r.out, "(250 sessions in all; more from offset=110)\n"));
	run(&r, "sessions", "offset=240", "limit=50", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(count_lines(r.out, ""), 11);
	assert_null(strstr(r.out, "more from"));
	run(&r, "sessions", "limit=0", NULL);
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.err, "'limit=0' is not a count"));
	run(&r, "sessions", "offset=x", NULL);
	assert_int_equal(r.rc, 2);
	run(&r, "sessions", "first=3", NULL);
	assert_int_equal(r.rc, 2);
}

/* stats at 250 sessions: one list, daemon.* once, every session, no page.next. */
static void test_stats_paged(void **state)
{
	run(&r, "stats", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(count_lines(r.out, "daemon.version "), 1);
	assert_int_equal(count_lines(r.out, "session."), 250 * 7);
	assert_int_equal(count_lines(r.out, "session.249.path.1.name "), 1);
	assert_int_equal(count_lines(r.out, "page."), 0);	/* the pager's, not shown */
	run(&r, "stats", "--json", NULL);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "{\"peer\":\"ue249\",\"state\":\"established\""));
	assert_null(strstr(r.out, "\"page\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_golden),
		cmocka_unit_test(test_paths_sessions_golden),
		cmocka_unit_test(test_sched_and_set),
		cmocka_unit_test(test_path_reload),
		cmocka_unit_test(test_usage_and_connect_errors),
		cmocka_unit_test(test_metrics_watch),
	};
	const struct CMUnitTest many[] = {
		cmocka_unit_test(test_sessions_paged),
		cmocka_unit_test(test_stats_paged),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);

	rc |= cmocka_run_group_tests(many, setup_many, teardown);

	free(r.out);
	free(r.err);
	return rc;
}
