// SPDX-License-Identifier: MIT
/*
 * Control server with a fake daemon (tests/unit/support/ctl_fake.c): the libev loop
 * runs in this process, clients are real Unix-socket connections in a temp directory.
 * Replies, scope, permissions (a setuid(65534) child when run as root), garbage from one
 * client while another works, stale-socket replacement and refusal when live, watch
 * streams to two clients, the slow-reader drop, the client limit with root's reserved
 * slot and the per-uid limit, the idle / not-reading timeout, one reply at a time for
 * a pipelining client, and the cap on all clients' unread replies.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctl_fake.h"
#include "ctl_server.h"

struct env {
	char dir[64], path[128];
	struct ev_loop *loop;
	struct mpt_ctl_server srv;
	struct fake_daemon d;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char err[256];

	strcpy(e->dir, "/tmp/ctltest.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	chmod(e->dir, 0755);
	snprintf(e->path, sizeof(e->path), "%s/t.sock", e->dir);
	e->loop = ev_loop_new(EVFLAG_AUTO);
	ctl_fake_init(&e->d);
	assert_int_equal(mpt_ctl_server_open(&e->srv, e->loop, e->path, "65534",
					     &ctl_fake_handlers, &e->d, err, sizeof(err)), 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	mpt_ctl_server_close(&e->srv);
	ev_loop_destroy(e->loop);
	rmdir(e->dir);
	free(e);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int client(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sun.sun_path, path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

struct rbuf {
	char b[1 << 20];
	size_t len;
	bool eof;
};

/* Read what is there; returns bytes read. */
static size_t drain(int fd, struct rbuf *r)
{
	size_t got = 0;
	ssize_t n;

	while (r->len + 1 < sizeof(r->b) &&
	       (n = recv(fd, r->b + r->len, sizeof(r->b) - 1 - r->len, MSG_DONTWAIT)) >= 0) {
		if (n == 0) {
			r->eof = true;
			break;
		}
		r->len += (size_t)n;
		got += (size_t)n;
	}
	r->b[r->len] = '\0';
	return got;
}

/* Count complete replies (lines "errno=N" followed by a blank line). */
static unsigned replies(const struct rbuf *r)
{
	unsigned n = 0;

	for (const char *p = r->b; (p = strstr(p, "\nerrno=")); p++) {
		const char *nl = strchr(p + 1, '\n');

		if (nl && nl[1] == '\n')
			n++;
	}
	return n;
}

/* Run the loop until fd has want replies (or EOF), at most max_s seconds. */
static void pump(struct env *e, int fd, struct rbuf *r, unsigned want, double max_s)
{
	double end = now_s() + max_s;

	while (now_s() < end) {
		ev_run(e->loop, EVRUN_NOWAIT);
		if (fd >= 0) {
			drain(fd, r);
			if (replies(r) >= want || r->eof)
				return;
		}
		usleep(500);
	}
}

static void rpc(struct env *e, int fd, const char *req, struct rbuf *r)
{
	r->len = 0;
	r->b[0] = '\0';
	r->eof = false;
	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	pump(e, fd, r, 1, 2.0);
	assert_int_equal(replies(r), 1);
	assert_memory_equal(r->b, "version=1\n", 10);
}

static struct rbuf rb, rb2;

static void test_replies(void **state)
{
	struct env *e = *state;
	int fd = client(e->path);
	struct stat st;

	assert_int_equal(stat(e->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660);
	assert_int_equal(st.st_gid, 65534);

	rpc(e, fd, "cmd=stats\n\n", &rb);
	assert_non_null(strstr(rb.b, "\ndaemon.role=ue\n"));
	assert_non_null(strstr(rb.b, "\nsession.0.path.1.name=cell\n"));
	assert_non_null(strstr(rb.b, "\nsession.0.sched_stat.cw_frac.1=0.53\n"));
	assert_non_null(strstr(rb.b, "\nsession.0.sched_stat.moves_total=7\n"));
	assert_string_equal(rb.b + rb.len - 10, "\nerrno=0\n\n");

	rpc(e, fd, "cmd=stats\nscope=session.0.path.1\n\n", &rb);
	assert_null(strstr(rb.b, "daemon."));
	assert_null(strstr(rb.b, "path.0."));
	assert_non_null(strstr(rb.b, "\nsession.0.path.1.srtt_us=48000\n"));

	rpc(e, fd, "cmd=sched_list\n\n", &rb);
	assert_non_null(strstr(rb.b, "\nsched.0.name="));

	rpc(e, fd, "cmd=sched\n\n", &rb);
	assert_non_null(strstr(rb.b, "\nsched.param.min_frac.value=0.1\n"));
	assert_non_null(strstr(rb.b, "\nsched.param.probe_ms.max=1000\n"));

	rpc(e, fd, "cmd=set\nsched.min_frac=0.5\n\n", &rb);
	assert_true(e->d.sched.min_frac == 0.5);
	rpc(e, fd, "cmd=set\nsched.min_frac=0.25\nsched.probe_ms=0\n\n", &rb);
	assert_non_null(strstr(rb.b, "message=probe_ms: '0' is out of range [1, 1000]\nerrno=34\n"));
	assert_true(e->d.sched.min_frac == 0.5);	/* all or nothing */

	rpc(e, fd, "cmd=path\npath=cell\nadmin=down\n\n", &rb);
	assert_false(e->d.paths[1].admin_up);
	rpc(e, fd, "cmd=path\npath=dsl\nadmin=down\n\n", &rb);
	assert_non_null(strstr(rb.b, "message=no path 'dsl'\nerrno=2\n"));

	rpc(e, fd, "cmd=reload\n\n", &rb);
	assert_int_equal(e->d.reloads, 1);

	/* two requests in one write, answered in order */
	rb.len = 0;
	send(fd, "cmd=reload\n\ncmd=sched_list\n\n", 28, 0);
	pump(e, fd, &rb, 2, 2.0);
	assert_int_equal(replies(&rb), 2);
	assert_int_equal(e->d.reloads, 2);
	close(fd);
}

static void test_enosys(void **state)
{
	static const struct mpt_ctl_handlers none = { 0 };
	struct env *e = *state;
	int fd = client(e->path);

	e->srv.h = &none;
	rpc(e, fd, "cmd=reload\n\n", &rb);
	assert_non_null(strstr(rb.b, "message=command 'reload' is not supported by this daemon\n"
			       "errno=38\n"));
	e->srv.h = &ctl_fake_handlers;
	close(fd);
}

static void test_garbage(void **state)
{
	struct env *e = *state;
	int a = client(e->path), b = client(e->path);
	char big[5000];

	rpc(e, a, "hello\n\n", &rb);
	assert_non_null(strstr(rb.b, "message=line 1: 'hello' is not key=value\nerrno=22\n"));
	rb.len = 0;
	send(a, "cmd=stats\nscope=a\0b\n\n", 21, 0);
	pump(e, a, &rb, 1, 2.0);
	assert_non_null(strstr(rb.b, "message=line 2 contains a NUL byte\nerrno=22\n"));
	rb.len = 0;
	send(a, "cmd=stats\nx=\x01\n\n", 15, 0);
	pump(e, a, &rb, 1, 2.0);
	assert_non_null(strstr(rb.b, "control character 0x01"));
	/* b is unaffected, a is still usable */
	rpc(e, b, "cmd=stats\nscope=daemon.role\n\n", &rb2);
	assert_string_equal(rb2.b, "version=1\ndaemon.role=ue\nerrno=0\n\n");
	rpc(e, a, "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_string_equal(rb.b, "version=1\ndaemon.role=ue\nerrno=0\n\n");

	/* no blank line within 4 KiB: E2BIG, then the server closes a */
	memset(big, 'a', sizeof(big));
	for (size_t i = 100; i < sizeof(big); i += 100)
		big[i] = '\n';
	rb.len = 0;
	send(a, big, sizeof(big), 0);
	pump(e, a, &rb, 1, 2.0);
	assert_non_null(strstr(rb.b, "errno=7\n"));
	pump(e, a, &rb, 99, 0.5);
	assert_true(rb.eof);
	rpc(e, b, "cmd=stats\nscope=daemon.role\n\n", &rb2);
	assert_string_equal(rb2.b, "version=1\ndaemon.role=ue\nerrno=0\n\n");
	close(a);

	/* a request cut short by EOF: answered, then closed */
	rb2.len = 0;
	rb2.eof = false;
	send(b, "cmd=stats\nscope=daemon.role\n", 29, 0);
	shutdown(b, SHUT_WR);
	pump(e, b, &rb2, 1, 2.0);
	assert_non_null(strstr(rb2.b, "message=request of 29 bytes ends without the empty "
			       "line\nerrno=22\n\n"));
	pump(e, b, &rb2, 99, 0.5);
	assert_true(rb2.eof);
	close(b);
}

static void test_eperm(void **state)
{
	struct env *e = *state;
	int status, ok = 0;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	pid = fork();
	if (pid == 0) {
		char buf[4096];
		size_t len = 0;
		int fd;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		fd = client(e->path);
		fcntl(fd, F_SETFL, 0);
		send(fd, "cmd=reload\n\ncmd=stats\nscope=daemon.role\n\n", 41, 0);
		while (len < sizeof(buf) - 1) {
			ssize_t n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);

			if (n <= 0)
				break;
			len += (size_t)n;
			buf[len] = '\0';
			if (strstr(buf, "daemon.role=ue\nerrno=0\n\n"))
				break;
		}
		_exit(strstr(buf, "needs uid 0 (peer is uid 65534)\nerrno=1\n\n") &&
		      strstr(buf, "daemon.role=ue\nerrno=0\n\n") ? 0 : 11);
	}
	for (double end = now_s() + 5; now_s() < end && !ok;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		ok = waitpid(pid, &status, WNOHANG) == pid;
		usleep(500);
	}
	assert_true(ok);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(e->d.reloads, 0);
}

static void test_stale(void **state)
{
	struct env *e = *state;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct mpt_ctl_server other;
	char err[256];
	int fd;

	/* live: refused, and the live socket is left alone */
	assert_int_equal(mpt_ctl_server_open(&other, e->loop, e->path, NULL, &ctl_fake_handlers,
					     &e->d, err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "another daemon answers on"));
	fd = client(e->path);
	rpc(e, fd, "cmd=stats\nscope=daemon.role\n\n", &rb);
	close(fd);

	/* stale: a socket file nobody listens on is replaced */
	mpt_ctl_server_close(&e->srv);
	strcpy(sun.sun_path, e->path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	assert_int_equal(access(e->path, F_OK), 0);
	assert_int_equal(mpt_ctl_server_open(&e->srv, e->loop, e->path, NULL, &ctl_fake_handlers,
					     &e->d, err, sizeof(err)), 0);
	fd = client(e->path);
	rpc(e, fd, "cmd=stats\nscope=daemon.role\n\n", &rb);
	close(fd);

	/* not a socket: refused */
	mpt_ctl_server_close(&e->srv);
	assert_int_equal(access(e->path, F_OK), -1);	/* close unlinked it */
	fd = open(e->path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	assert_int_equal(mpt_ctl_server_open(&e->srv, e->loop, e->path, NULL, &ctl_fake_handlers,
					     &e->d, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "is not a socket"));
	unlink(e->path);
	assert_int_equal(mpt_ctl_server_open(&e->srv, e->loop, e->path, "no-such-group-x",
					     &ctl_fake_handlers, &e->d, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "control group 'no-such-group-x' does not exist");
	assert_int_equal(mpt_ctl_server_open(&e->srv, e->loop, e->path, NULL, &ctl_fake_handlers,
					     &e->d, err, sizeof(err)), 0);
}

static void test_watch(void **state)
{
	struct env *e = *state;
	int a = client(e->path), b = client(e->path), c = client(e->path);
	double t0, el;
	unsigned na, nb;

	rpc(e, a, "cmd=watch\ninterval_ms=5\n\n", &rb);		/* below 10 ms */
	assert_non_null(strstr(rb.b, "interval_ms: '5' is not a number in [10, 60000]"));
	rb.len = rb2.len = 0;
	send(a, "cmd=watch\ninterval_ms=10\nscope=session.0.path.0\n\n", 49, 0);
	send(b, "cmd=watch\ninterval_ms=40\n\n", 26, 0);
	t0 = now_s();
	pump(e, -1, NULL, 0, 0.3);
	drain(a, &rb);
	drain(b, &rb2);
	el = now_s() - t0;
	na = replies(&rb);
	nb = replies(&rb2);
	print_message("watch: %.3f s, a %u records (10 ms), b %u (40 ms)\n", el, na, nb);
	/* one record at start, then one per interval; the loop may run late, never early */
	assert_true(na <= (unsigned)(el / 0.010) + 1);
	assert_true(na >= (unsigned)(el / 0.010) / 2);
	assert_true(nb <= (unsigned)(el / 0.040) + 1);
	assert_true(nb >= (unsigned)(el / 0.040) / 2);
	assert_non_null(strstr(rb.b, "version=1\ntime_ms="));
	assert_null(strstr(rb.b, "daemon."));
	assert_non_null(strstr(rb2.b, "daemon.role=ue"));
	/* a third client is served between the records */
	rpc(e, c, "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_string_equal(rb.b, "version=1\ndaemon.role=ue\nerrno=0\n\n");
	close(a);
	close(b);
	pump(e, -1, NULL, 0, 0.05);
	assert_int_equal(e->srv.nclients, 1);
	close(c);
}

static void test_slow_drop(void **state)
{
	struct env *e = *state;
	int w, c;
	double end;

	e->srv.out_max = 64 << 10;
	e->d.pad_lines = 100;		/* ~12 KB per record */
	w = client(e->path);
	c = client(e->path);
	send(w, "cmd=watch\ninterval_ms=10\n\n", 26, 0);
	for (end = now_s() + 10; now_s() < end && !e->srv.dropped_slow;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		usleep(500);
	}
	assert_int_equal(e->srv.dropped_slow, 1);
	/* the daemon kept serving others; the slow client finds EOF after its data */
	rpc(e, c, "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_string_equal(rb.b, "version=1\ndaemon.role=ue\nerrno=0\n\n");
	assert_int_equal(e->srv.nclients, 1);
	rb.len = 0;
	while (!rb.eof && drain(w, &rb))
		rb.len = 0;
	assert_true(rb.eof);
	close(w);

	/* a client that pipelines requests and never reads the replies: it holds one
	 * reply at a time, and is closed when it has not read it for idle_s */
	e->srv.idle_s = 0.3;
	w = client(e->path);
	for (int i = 0; i < 60; i++)
		send(w, "cmd=stats\n\n", 11, 0);
	for (end = now_s() + 0.2; now_s() < end;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		usleep(500);
	}
	assert_int_equal(e->srv.nclients, 2);
	assert_true(mpt_ctl_server_queued(&e->srv) <= 16 << 10);	/* one reply */
	for (end = now_s() + 5; now_s() < end && !e->srv.timed_out;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		usleep(500);
	}
	assert_int_equal(e->srv.timed_out, 1);
	assert_int_equal(e->srv.dropped_slow, 1);
	rpc(e, c, "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_string_equal(rb.b, "version=1\ndaemon.role=ue\nerrno=0\n\n");
	close(w);
	close(c);
}

static void test_client_limit(void **state)
{
	struct env *e = *state;
	int fds[MPT_CTL_MAX_CLIENTS + 1];

	for (int i = 0; i < MPT_CTL_MAX_CLIENTS; i++) {
		fds[i] = client(e->path);
		pump(e, -1, NULL, 0, 0.002);
	}
	fds[MPT_CTL_MAX_CLIENTS] = client(e->path);
	rb.len = 0;
	pump(e, fds[MPT_CTL_MAX_CLIENTS], &rb, 1, 1.0);
	assert_string_equal(rb.b, "version=1\nmessage=too many control clients\nerrno=16\n\n");
	assert_int_equal(e->srv.nclients, MPT_CTL_MAX_CLIENTS);
	rpc(e, fds[0], "cmd=stats\nscope=daemon.role\n\n", &rb);
	for (int i = 0; i <= MPT_CTL_MAX_CLIENTS; i++)
		close(fds[i]);
}

static void test_idle_timeout(void **state)
{
	struct env *e = *state;
	int idle, half, ok;
	double end;

	e->srv.idle_s = 0.3;
	idle = client(e->path);
	half = client(e->path);
	ok = client(e->path);
	send(half, "cmd=stats\n", 10, 0);	/* never completed */
	rpc(e, ok, "cmd=stats\nscope=daemon.role\n\n", &rb);
	for (end = now_s() + 0.2; now_s() < end;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		usleep(500);
	}
	rpc(e, ok, "cmd=stats\nscope=daemon.role\n\n", &rb);	/* active: stays */
	for (end = now_s() + 2; now_s() < end && e->srv.timed_out < 2;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		usleep(500);
	}
	assert_int_equal(e->srv.timed_out, 2);
	assert_int_equal(e->srv.nclients, 1);
	rb.len = 0;
	drain(idle, &rb);
	assert_true(rb.eof);
	/* a watch client that reads its stream is not idle, whatever the interval */
	send(ok, "cmd=watch\ninterval_ms=1000\nscope=daemon.role\n\n", 47, 0);
	rb.len = 0;
	rb.eof = false;
	for (end = now_s() + 1.5; now_s() < end;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		drain(ok, &rb);
		usleep(500);
	}
	assert_false(rb.eof);
	assert_int_equal(replies(&rb), 2);
	assert_int_equal(e->srv.nclients, 1);
	close(idle);
	close(half);
	close(ok);
}

/* In a child as uid 65534: open n connections, report how many were refused. */
static void child_connects(const char *path, int n, int pipefd)
{
	int fds[MPT_CTL_MAX_CLIENTS], refused = 0;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		_exit(10);
	for (int i = 0; i < n; i++) {
		char buf[256] = "";

		fds[i] = client(path);
		fcntl(fds[i], F_SETFL, 0);
		send(fds[i], "cmd=stats\nscope=daemon.role\n\n", 30, 0);
		recv(fds[i], buf, sizeof(buf) - 1, 0);
		refused += strstr(buf, "errno=16") != NULL;
	}
	if (write(pipefd, &refused, sizeof(refused)) != sizeof(refused))
		_exit(12);
	pause();
	_exit(0);
}

static void test_uid_limits(void **state)
{
	struct env *e = *state;
	int p[2], refused = -1, fds[MPT_CTL_MAX_CLIENTS];
	pid_t pid;

	if (geteuid() != 0)
		skip();
	assert_int_equal(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	pid = fork();
	if (pid == 0)
		child_connects(e->path, MPT_CTL_MAX_PER_UID + 2, p[1]);
	for (double end = now_s() + 5; now_s() < end && refused < 0;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		if (read(p[0], &refused, sizeof(refused)) != sizeof(refused))
			refused = -1;
		usleep(500);
	}
	assert_int_equal(refused, 2);		/* 4 per uid */
	assert_int_equal(e->srv.nclients, MPT_CTL_MAX_PER_UID);
	/* root fills all the rest, the reserved slot included */
	for (int i = 0; i < MPT_CTL_MAX_CLIENTS - MPT_CTL_MAX_PER_UID; i++) {
		fds[i] = client(e->path);
		pump(e, -1, NULL, 0, 0.002);
	}
	assert_int_equal(e->srv.nclients, MPT_CTL_MAX_CLIENTS);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (int i = 0; i < MPT_CTL_MAX_CLIENTS - MPT_CTL_MAX_PER_UID; i++)
		close(fds[i]);
	close(p[0]);
	close(p[1]);
}

static void test_root_slot(void **state)
{
	struct env *e = *state;
	int p[2], refused = -1, fds[MPT_CTL_MAX_CLIENTS], n = MPT_CTL_MAX_CLIENTS - 1 - 3;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	/* root holds 12, a user 3: the user's 4th would take the last slot: refused */
	for (int i = 0; i < n; i++) {
		fds[i] = client(e->path);
		pump(e, -1, NULL, 0, 0.002);
	}
	assert_int_equal(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	pid = fork();
	if (pid == 0)
		child_connects(e->path, 4, p[1]);
	for (double end = now_s() + 5; now_s() < end && refused < 0;) {
		ev_run(e->loop, EVRUN_NOWAIT);
		if (read(p[0], &refused, sizeof(refused)) != sizeof(refused))
			refused = -1;
		usleep(500);
	}
	assert_int_equal(refused, 1);
	assert_int_equal(e->srv.nclients, MPT_CTL_MAX_CLIENTS - 1);
	/* root still gets in */
	fds[n] = client(e->path);
	rpc(e, fds[n], "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_int_equal(e->srv.nclients, MPT_CTL_MAX_CLIENTS);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (int i = 0; i <= n; i++)
		close(fds[i]);
	close(p[0]);
	close(p[1]);
}

static void test_unread_cap(void **state)
{
	struct env *e = *state;
	int bad[4], ok;

	e->d.pad_lines = 5000;		/* ~600 KB per reply: more than a socket buffer */
	e->srv.out_total = 100 << 10;
	for (int i = 0; i < 4; i++) {
		bad[i] = client(e->path);
		for (int j = 0; j < 4; j++)
			send(bad[i], "cmd=stats\n\n", 11, 0);
		pump(e, -1, NULL, 0, 0.01);
	}
	e->d.pad_lines = 0;
	ok = client(e->path);
	rpc(e, ok, "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_non_null(strstr(rb.b, "unread by other clients; try again\nerrno=11\n\n"));
	assert_true(e->srv.busy >= 1);
	for (int i = 0; i < 4; i++)
		close(bad[i]);
	pump(e, -1, NULL, 0, 0.05);
	rpc(e, ok, "cmd=stats\nscope=daemon.role\n\n", &rb);
	assert_non_null(strstr(rb.b, "errno=0\n\n"));
	close(ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idle_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uid_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unread_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enosys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eperm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_drop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_limit, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
