// SPDX-License-Identifier: MIT
/*
 * mptund-ctl subcommands (see ctl_cmds.h). Each subcommand maps its arguments to one
 * request of the control protocol (include/mptund/ctl.h) and hands the reply to a view
 * (text) or a backend (--json, metrics). Nothing here knows daemon structs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mptund/ctl.h>

#include "ctl_client.h"
#include "ctl_cmds.h"
#include "ctl_view.h"

#define KV_MAX 8

static int usage_error(struct ctl_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_error(struct ctl_opts *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(o->err, "mptund-ctl: ");
	va_start(ap, fmt);
	vfprintf(o->err, fmt, ap);
	va_end(ap);
	fprintf(o->err, "\nTry 'mptund-ctl help'.\n");
	return CTL_EXIT_USAGE;
}

static int connect_daemon(struct ctl_opts *o, struct ctl_conn *c)
{
	char err[512];
	int rc;

	rc = ctl_socket_path(o->socket, o->instance, o->sockpath, sizeof(o->sockpath),
			     err, sizeof(err));
	if (!rc)
		rc = ctl_conn_open(c, o->sockpath, err, sizeof(err));
	if (rc) {
		fprintf(o->err, "mptund-ctl: %s\n", err);
		return rc == -EINVAL ? CTL_EXIT_USAGE : CTL_EXIT_CONNECT;
	}
	return CTL_EXIT_OK;
}

static int lost(struct ctl_opts *o, int rc)
{
	fprintf(o->err, "mptund-ctl: %s: %s\n", o->sockpath,
		rc == -ECONNRESET ? "connection closed by the daemon" :
		rc == -EPROTO ? "malformed reply" : strerror(-rc));
	return CTL_EXIT_CONNECT;
}

static int daemon_error(struct ctl_opts *o, const char *cmd, int err_no, const char *msg)
{
	fprintf(o->err, "mptund-ctl: %s: %s (errno %d: %s)\n", cmd,
		msg[0] ? msg : strerror(err_no), err_no, strerror(err_no));
	return CTL_EXIT_DAEMON;
}

/* One request, one reply. kv holds "key=value" strings. */
static int talk(struct ctl_opts *o, const char *cmd, const char *const *kv, size_t n,
		struct ctl_kvl *reply)
{
	struct ctl_conn c;
	char msg[512];
	int rc, err_no;

	rc = connect_daemon(o, &c);
	if (rc)
		return rc;
	rc = ctl_conn_send(&c, cmd, kv, n);
	if (!rc)
		rc = ctl_conn_recv(&c, reply, &err_no, msg, sizeof(msg));
	ctl_conn_close(&c);
	if (rc)
		return lost(o, rc);
	if (err_no)
		return daemon_error(o, cmd, err_no, msg);
	return CTL_EXIT_OK;
}

/* Add a page's keys to all: the first page whole, later ones their sessions only (the
 * daemon.* keys repeat); page.* are the pager's (kept, from the first page, only with
 * page_keys). Returns page.next, or -1 (last). */
static long merge_page(struct ctl_kvl *all, const struct ctl_kvl *page, bool first,
		       bool page_keys)
{
	long next = -1;

	for (size_t i = 0; i < page->n; i++) {
		const char *k = page->v[i].key;

		if (!strcmp(k, "page.next")) {
			next = strtol(page->v[i].val, NULL, 10);
			continue;
		}
		if (!strncmp(k, "page.", 5) && !page_keys)
			continue;
		if ((first || !strncmp(k, "session.", 8)) &&
		    ctl_kvl_add(all, k, page->v[i].val) < 0)
			return -2;
	}
	return next;
}

/*
 * stats, page after page: the daemon stops a reply at about MPT_CTL_PAGE_BYTES and
 * says where to go on (page.next=). extra: request lines besides offset/limit (scope=,
 * summary=1). limit 0: every session from offset. page_keys: keep page.sessions, and
 * page.next where the caller's limit stopped (for the sessions view's footer).
 */
static int talk_pages(struct ctl_opts *o, const char *const *extra, size_t nextra,
		      unsigned long offset, unsigned long limit, bool page_keys,
		      struct ctl_kvl *reply)
{
	char off[48], lim[48];
	const char *req[KV_MAX];
	size_t n = 0;
	bool first = true;

	if (nextra > KV_MAX - 2)
		return usage_error(o, "too many request keys");
	for (size_t i = 0; i < nextra; i++)
		req[n++] = extra[i];
	req[n++] = off;
	for (;;) {
		struct ctl_kvl page = { 0 };
		long next;
		int rc;

		snprintf(off, sizeof(off), "offset=%lu", offset);
		snprintf(lim, sizeof(lim), "limit=%lu", limit);
		req[n] = lim;
		rc = talk(o, "stats", req, n + (limit > 0), &page);
		if (rc != CTL_EXIT_OK) {
			ctl_kvl_free(&page);
			return rc;
		}
		next = merge_page(reply, &page, first, page_keys);
		ctl_kvl_free(&page);
		if (next == -2) {
			fprintf(o->err, "mptund-ctl: out of memory\n");
			return CTL_EXIT_CONNECT;
		}
		if (next < 0 || (unsigned long)next <= offset)
			return CTL_EXIT_OK;	/* the last page (or no progress) */
		if (limit) {
			if ((unsigned long)next - offset >= limit) {
				/* the user's page ends here: say where the rest starts */
				snprintf(off, sizeof(off), "%ld", next);
				return page_keys && ctl_kvl_add(reply, "page.next", off) < 0 ?
				       CTL_EXIT_CONNECT : CTL_EXIT_OK;
			}
			limit -= (unsigned long)next - offset;
		}
		offset = (unsigned long)next;
		first = false;
	}
}

static bool is_json(const struct ctl_opts *o)
{
	return o->be == &ctl_backend_json;
}

/* Keep only keys for which keep() is true, then dump with the backend. */
static int dump_filtered(struct ctl_opts *o, const struct ctl_kvl *kv,
			 bool (*keep)(const char *key))
{
	struct ctl_kvl sub = { 0 };
	int rc;

	for (size_t i = 0; i < kv->n; i++)
		if (keep(kv->v[i].key) && ctl_kvl_add(&sub, kv->v[i].key, kv->v[i].val))
			break;
	rc = o->be->dump(o->out, &sub);
	ctl_kvl_free(&sub);
	return rc ? CTL_EXIT_CONNECT : CTL_EXIT_OK;
}

static int stats_view(struct ctl_opts *o, void (*view)(FILE *, const struct ctl_kvl *),
		      bool (*keep)(const char *key), const char *const *extra, size_t nextra,
		      unsigned long offset, unsigned long limit)
{
	struct ctl_kvl kv = { 0 };
	int rc = talk_pages(o, extra, nextra, offset, limit, view == ctl_view_sessions, &kv);

	if (rc == CTL_EXIT_OK) {
		if (is_json(o))
			rc = dump_filtered(o, &kv, keep);
		else
			view(o->out, &kv);
	}
	ctl_kvl_free(&kv);
	return rc;
}

static bool keep_all(const char *key)
{
	return true;
}

static bool keep_paths(const char *key)
{
	const char *p = strchr(key, '.');

	return !strncmp(key, "session.", 8) && p && (p = strchr(p + 1, '.')) &&
	       (!strncmp(p, ".path.", 6) || !strcmp(p, ".peer"));
}

static bool keep_sessions(const char *key)
{
	return (!strncmp(key, "session.", 8) && !strstr(key, ".path.")) ||
	       !strncmp(key, "page.", 5);
}

static int cmd_status(struct ctl_opts *o, int argc, char **argv)
{
	return stats_view(o, ctl_view_status, keep_all, NULL, 0, 0, 0);
}

static int cmd_paths(struct ctl_opts *o, int argc, char **argv)
{
	return stats_view(o, ctl_view_paths, keep_paths, NULL, 0, 0, 0);
}

/* offset=N or limit=N: *v. Returns 1 if arg was that key, 0 if not, -1 if bad. */
static int page_arg(const char *arg, const char *key, unsigned long *v)
{
	size_t kl = strlen(key);
	char *end;

	if (strncmp(arg, key, kl) || arg[kl] != '=')
		return 0;
	errno = 0;
	*v = strtoul(arg + kl + 1, &end, 10);
	return (arg[kl + 1] < '0' || arg[kl + 1] > '9' || *end || errno ||
		*v > UINT32_MAX) ? -1 : 1;
}

static int cmd_sessions(struct ctl_opts *o, int argc, char **argv)
{
	static const char *const summary[] = { "summary=1" };
	unsigned long offset = 0, limit = 0;

	for (int i = 0; i < argc; i++) {
		int a = page_arg(argv[i], "offset", &offset);

		if (a == 0) {
			a = page_arg(argv[i], "limit", &limit);
			if (a > 0 && limit == 0)
				a = -1;
		}
		if (a < 0)
			return usage_error(o, "sessions: '%s' is not a count", argv[i]);
		if (a == 0)
			return usage_error(o, "sessions: unexpected argument '%s'", argv[i]);
	}
	return stats_view(o, ctl_view_sessions, keep_sessions, summary, 1, offset, limit);
}

static int cmd_stats(struct ctl_opts *o, int argc, char **argv)
{
	struct ctl_kvl kv = { 0 };
	char scope[MPT_CTL_MAX_LINE];
	const char *req[1] = { scope };
	int rc;

	if (argc > 1)
		return usage_error(o, "stats: unexpected argument '%s'", argv[1]);
	if (argc == 1)
		snprintf(scope, sizeof(scope), "scope=%s", argv[0]);
	rc = talk_pages(o, req, (size_t)argc, 0, 0, false, &kv);
	if (rc == CTL_EXIT_OK && o->be->dump(o->out, &kv))
		rc = CTL_EXIT_CONNECT;
	ctl_kvl_free(&kv);
	return rc;
}

static int cmd_metrics(struct ctl_opts *o, int argc, char **argv)
{
	o->be = &ctl_backend_prom;
	return cmd_stats(o, argc, argv);
}

static int cmd_watch(struct ctl_opts *o, int argc, char **argv)
{
	char iv[64], scope[MPT_CTL_MAX_LINE], msg[512];
	const char *req[2] = { iv, scope };
	struct ctl_kvl kv = { 0 }, sample = { 0 };
	struct ctl_conn c;
	int rc, err_no;

	if (argc > 1)
		return usage_error(o, "watch: unexpected argument '%s'", argv[1]);
	snprintf(iv, sizeof(iv), "interval_ms=%u", o->interval_ms);
	if (argc == 1)
		snprintf(scope, sizeof(scope), "scope=%s", argv[0]);
	rc = connect_daemon(o, &c);
	if (rc)
		return rc;
	rc = ctl_conn_send(&c, "watch", req, 1 + (size_t)argc);
	while (!rc) {
		const char *t;

		rc = ctl_conn_recv(&c, &kv, &err_no, msg, sizeof(msg));
		if (rc)
			break;
		if (err_no) {
			ctl_conn_close(&c);
			ctl_kvl_free(&kv);
			return daemon_error(o, "watch", err_no, msg);
		}
		t = ctl_kvl_get(&kv, "time_ms");
		for (size_t i = 0; i < kv.n; i++)
			if (strcmp(kv.v[i].key, "time_ms"))
				ctl_kvl_add(&sample, kv.v[i].key, kv.v[i].val);
		rc = o->be->sample(o->out, &sample, t ? strtod(t, NULL) : 0) ? -EIO : 0;
		ctl_kvl_free(&sample);
	}
	ctl_conn_close(&c);
	ctl_kvl_free(&kv);
	return lost(o, rc);
}

static int session_kv(struct ctl_opts *o, char *buf, size_t len)
{
	if (!o->session)
		return 0;
	snprintf(buf, len, "session=%s", o->session);
	return 1;
}

static int print_reply(struct ctl_opts *o, const struct ctl_kvl *kv)
{
	if (kv->n && o->be->dump(o->out, kv))
		return CTL_EXIT_CONNECT;
	return CTL_EXIT_OK;
}

static int cmd_sched(struct ctl_opts *o, int argc, char **argv)
{
	struct ctl_kvl kv = { 0 };
	char sess[64];
	const char *req[1] = { sess };
	int rc;

	if (argc == 1 && !strcmp(argv[0], "list")) {
		rc = talk(o, "sched_list", NULL, 0, &kv);
		if (rc == CTL_EXIT_OK && is_json(o))
			rc = print_reply(o, &kv);
		else if (rc == CTL_EXIT_OK)
			ctl_view_sched_list(o->out, &kv);
		ctl_kvl_free(&kv);
		return rc;
	}
	if (argc)
		return usage_error(o, "sched: unexpected argument '%s'", argv[0]);
	rc = talk(o, "sched", req, (size_t)session_kv(o, sess, sizeof(sess)), &kv);
	if (rc == CTL_EXIT_OK && is_json(o))
		rc = print_reply(o, &kv);
	else if (rc == CTL_EXIT_OK)
		ctl_view_sched(o->out, &kv);
	ctl_kvl_free(&kv);
	return rc;
}

static bool valid_param(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int cmd_set(struct ctl_opts *o, int argc, char **argv)
{
	char set[MPT_CTL_MAX_LINE], sess[64];
	const char *req[2] = { set, sess };
	struct ctl_kvl kv = { 0 };
	int rc;

	if (argc != 2)
		return usage_error(o, "set: expected 'sched NAME', 'sched.PARAM VALUE' or "
				   "'cc.PARAM VALUE'");
	if (!strcmp(argv[0], "sched")) {
		snprintf(set, sizeof(set), "sched=%s", argv[1]);
	} else if ((!strncmp(argv[0], "sched.", 6) && argv[0][6] && valid_param(argv[0] + 6)) ||
		   (!strncmp(argv[0], "cc.", 3) && argv[0][3] && valid_param(argv[0] + 3))) {
		int n = snprintf(set, sizeof(set), "%.*s=", (int)(sizeof(set) / 2), argv[0]);

		if (strlen(argv[0]) + strlen(argv[1]) + 2 > sizeof(set))
			return usage_error(o, "set: '%s' is too long", argv[1]);
		memcpy(set + n, argv[1], strlen(argv[1]) + 1);
	} else {
		return usage_error(o, "set: '%s' is not sched, sched.PARAM or cc.PARAM", argv[0]);
	}
	if (strpbrk(argv[1], "\r\n"))
		return usage_error(o, "set: value '%s' contains a line break", argv[1]);
	rc = talk(o, "set", req, 1 + (size_t)session_kv(o, sess, sizeof(sess)), &kv);
	if (rc == CTL_EXIT_OK)
		rc = print_reply(o, &kv);
	ctl_kvl_free(&kv);
	return rc;
}

static int cmd_path(struct ctl_opts *o, int argc, char **argv)
{
	char name[MPT_CTL_MAX_LINE], what[64], sess[64];
	const char *req[3] = { name, what, sess };
	struct ctl_kvl kv = { 0 };
	int rc;

	if (argc < 2)
		return usage_error(o, "path: expected NAME up|down|cost N|weight N");
	if (strlen(argv[0]) > 64 || strpbrk(argv[0], "\r\n="))
		return usage_error(o, "path: '%s' is not a path name", argv[0]);
	snprintf(name, sizeof(name), "path=%s", argv[0]);
	if (argc == 2 && (!strcmp(argv[1], "up") || !strcmp(argv[1], "down")))
		snprintf(what, sizeof(what), "admin=%s", argv[1]);
	else if (argc == 3 && (!strcmp(argv[1], "cost") || !strcmp(argv[1], "weight"))) {
		if (!ctl_is_digits(argv[2]) || strlen(argv[2]) > 10)
			return usage_error(o, "path: '%s' is not a whole number", argv[2]);
		snprintf(what, sizeof(what), "%s=%s", argv[1], argv[2]);
	} else
		return usage_error(o, "path: '%s' is not up, down, cost N or weight N", argv[1]);
	rc = talk(o, "path", req, 2 + (size_t)session_kv(o, sess, sizeof(sess)), &kv);
	if (rc == CTL_EXIT_OK)
		rc = print_reply(o, &kv);
	ctl_kvl_free(&kv);
	return rc;
}

static int cmd_reload(struct ctl_opts *o, int argc, char **argv)
{
	struct ctl_kvl kv = { 0 };
	int rc;

	if (argc)
		return usage_error(o, "reload: unexpected argument '%s'", argv[0]);
	rc = talk(o, "reload", NULL, 0, &kv);
	if (rc == CTL_EXIT_OK)
		rc = print_reply(o, &kv);
	ctl_kvl_free(&kv);
	return rc;
}

/* rule list | add NAME [at POS] KEY=VALUE... | del NAME | move NAME POS */
static int rule_req(struct ctl_opts *o, int argc, char **argv, char (*buf)[MPT_CTL_MAX_LINE],
		    size_t *n)
{
	int i = 2;

	if (argc < 2 || strlen(argv[1]) > 64 || strpbrk(argv[1], "\r\n= "))
		return usage_error(o, "rule %s: expected a rule NAME", argv[0]);
	snprintf(buf[(*n)++], MPT_CTL_MAX_LINE, "op=%s", argv[0]);
	snprintf(buf[(*n)++], MPT_CTL_MAX_LINE, "name=%s", argv[1]);
	if (!strcmp(argv[0], "move")) {
		if (argc != 3 || !ctl_is_digits(argv[2]) || strlen(argv[2]) > 5)
			return usage_error(o, "rule move: expected NAME POSITION (0 = first)");
		snprintf(buf[(*n)++], MPT_CTL_MAX_LINE, "pos=%s", argv[2]);
		return 0;
	}
	if (!strcmp(argv[0], "del"))
		return argc == 2 ? 0 : usage_error(o, "rule del: unexpected '%s'", argv[2]);
	if (argc > 3 && !strcmp(argv[2], "at")) {
		if (!ctl_is_digits(argv[3]) || strlen(argv[3]) > 5)
			return usage_error(o, "rule add: '%s' is not a position", argv[3]);
		snprintf(buf[(*n)++], MPT_CTL_MAX_LINE, "pos=%s", argv[3]);
		i = 4;
	}
	for (; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t kl = eq ? (size_t)(eq - argv[i]) : 0;
		char key[40];

		if (!eq || !kl || kl >= sizeof(key) || strpbrk(argv[i], "\r\n"))
			return usage_error(o, "rule add: '%s' is not KEY=VALUE", argv[i]);
		if (*n >= MPT_CTL_MAX_KEYS - 1)
			return usage_error(o, "rule add: too many KEY=VALUE (max %d)",
					   MPT_CTL_MAX_KEYS - 4);
		for (size_t k = 0; k < kl; k++)
			key[k] = (char)(argv[i][k] >= 'A' && argv[i][k] <= 'Z' ?
					argv[i][k] - 'A' + 'a' : argv[i][k]);
		key[kl] = '\0';
		if (!valid_param(key))
			return usage_error(o, "rule add: '%s' is not a key", key);
		if (snprintf(buf[*n], MPT_CTL_MAX_LINE, "r.%s=%s", key, eq + 1) >=
		    MPT_CTL_MAX_LINE - 1)
			return usage_error(o, "rule add: '%s' is too long", argv[i]);
		(*n)++;
	}
	return 0;
}

static int cmd_rule(struct ctl_opts *o, int argc, char **argv)
{
	static char buf[MPT_CTL_MAX_KEYS][MPT_CTL_MAX_LINE];
	const char *req[MPT_CTL_MAX_KEYS];
	struct ctl_kvl kv = { 0 };
	size_t n = 0;
	int rc;

	if (argc == 1 && !strcmp(argv[0], "list")) {
		rc = talk(o, "rule_list", NULL, 0, &kv);
		if (rc == CTL_EXIT_OK)
			rc = print_reply(o, &kv);
		ctl_kvl_free(&kv);
		return rc;
	}
	if (!argc || (strcmp(argv[0], "add") && strcmp(argv[0], "del") &&
		      strcmp(argv[0], "move")))
		return usage_error(o, "rule: expected list, add, del or move");
	rc = rule_req(o, argc, argv, buf, &n);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		req[i] = buf[i];
	rc = talk(o, "rule", req, n, &kv);
	if (rc == CTL_EXIT_OK)
		rc = print_reply(o, &kv);
	ctl_kvl_free(&kv);
	return rc;
}

static int cmd_help(struct ctl_opts *o, int argc, char **argv);

const struct ctl_cmd ctl_cmds[] = {
	{ "status", cmd_status, "", "role, uptime, sessions and their paths at a glance",
	  CTL_OPT_JSON },
	{ "paths", cmd_paths, "", "every path: state, RTT, window, in flight, losses",
	  CTL_OPT_JSON },
	{ "sessions", cmd_sessions, "[offset=N] [limit=N]",
	  "sessions (a page of them): peer, scheduler, paths up, queue, traffic",
	  CTL_OPT_JSON },
	{ "stats", cmd_stats, "[SCOPE]", "every counter and gauge (SCOPE: key prefix)",
	  CTL_OPT_JSON },
	{ "watch", cmd_watch, "[SCOPE]", "timestamped samples every --interval ms until ^C",
	  CTL_OPT_JSON | CTL_OPT_INTERVAL },
	{ "metrics", cmd_metrics, "[SCOPE]", "Prometheus text exposition format", 0 },
	{ "sched", cmd_sched, "[list]", "active scheduler and its tunables, or all schedulers",
	  CTL_OPT_JSON | CTL_OPT_SESSION },
	{ "set", cmd_set, "sched NAME | sched.PARAM VALUE | cc.PARAM VALUE",
	  "change the scheduler or a tunable", CTL_OPT_JSON | CTL_OPT_SESSION },
	{ "path", cmd_path, "NAME up|down|cost N|weight N", "administer a path",
	  CTL_OPT_JSON | CTL_OPT_SESSION },
	{ "reload", cmd_reload, "", "re-read the configuration file", CTL_OPT_JSON },
	{ "rule", cmd_rule, "list | add NAME [at POS] KEY=VALUE... | del NAME | move NAME POS",
	  "steering rules: list, add, delete, reorder (mptund.conf(5) [Rule])",
	  CTL_OPT_JSON },
	{ "help", cmd_help, "", "this list", 0 },
};
const size_t ctl_ncmds = sizeof(ctl_cmds) / sizeof(ctl_cmds[0]);

static void usage(FILE *f)
{
	fprintf(f, "usage: mptund-ctl [-s SOCKET | -i NAME] [--json] COMMAND [ARGS]\n"
		"options: -s SOCKET, -i NAME (socket %s/NAME.sock), -j/--json,\n"
		"         -n/--interval MS (watch, default 1000, min %d), -S/--session S\n"
		"commands:\n", MPT_CTL_RUN_DIR, MPT_CTL_WATCH_MIN_MS);
	for (size_t i = 0; i < ctl_ncmds; i++)
		fprintf(f, "  %s%s%s\n      %s\n", ctl_cmds[i].name,
			ctl_cmds[i].usage[0] ? " " : "", ctl_cmds[i].usage, ctl_cmds[i].help);
	fprintf(f, "exit: 0 ok, 1 daemon error, 2 usage, 3 cannot connect\n");
}

static int cmd_help(struct ctl_opts *o, int argc, char **argv)
{
	usage(o->out);
	return CTL_EXIT_OK;
}

static int parse_interval(struct ctl_opts *o, const char *arg)
{
	char *e;
	unsigned long v = strtoul(arg, &e, 10);

	if (*e || !*arg || arg[0] == '-' || v < MPT_CTL_WATCH_MIN_MS || v > MPT_CTL_WATCH_MAX_MS)
		return usage_error(o, "--interval: '%s' is not a number of ms in [10, 60000]",
				   arg);
	o->interval_ms = (unsigned)v;
	return CTL_EXIT_OK;
}

/*
 * Options may come before or after the command (GNU getopt permutes); "--" ends them,
 * for values that start with '-'.
 */
int ctl_main(int argc, char **argv, FILE *out, FILE *err)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "instance", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'n' },
		{ "session", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_opts o = { .be = &ctl_backend_text, .out = out, .err = err,
			      .interval_ms = 1000 };
	const struct ctl_cmd *cmd = NULL;
	int c;

	optind = 0;		/* full re-initialisation (tests call this repeatedly) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:i:jn:S:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.socket = optarg;
			break;
		case 'i':
			o.instance = optarg;
			break;
		case 'j':
			o.be = &ctl_backend_json;
			o.given |= CTL_OPT_JSON;
			break;
		case 'n':
			if (parse_interval(&o, optarg))
				return CTL_EXIT_USAGE;
			o.given |= CTL_OPT_INTERVAL;
			break;
		case 'S':
			o.session = optarg;
			o.given |= CTL_OPT_SESSION;
			break;
		case 'h':
			usage(out);
			return CTL_EXIT_OK;
		case 'V':
			fprintf(out, "mptund-ctl %s (protocol %d)\n", MPTUND_VERSION,
				MPT_CTL_VERSION);
			return CTL_EXIT_OK;
		default:
			return usage_error(&o, "bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(err);
		return CTL_EXIT_USAGE;
	}
	for (size_t i = 0; i < ctl_ncmds && !cmd; i++)
		if (!strcmp(argv[optind], ctl_cmds[i].name))
			cmd = &ctl_cmds[i];
	if (!cmd)
		return usage_error(&o, "unknown command '%s'", argv[optind]);
	if (o.given & ~cmd->opts)
		return usage_error(&o, "%s: option not accepted here", cmd->name);
	if (o.socket && o.instance)
		return usage_error(&o, "-s and -i exclude each other");
	optind++;
	return cmd->fn(&o, argc - optind, argv + optind);
}
