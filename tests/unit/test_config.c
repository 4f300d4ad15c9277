// SPDX-License-Identifier: MIT
/*
 * mptund.conf parser: golden files (tests/config/good/NAME.conf -> NAME.out normalised
 * print, tests/config/bad/NAME.conf -> first error line in NAME.err), print -> parse -> print
 * identity, every example in configs/ loads, the man page documents exactly the keys
 * the parser knows, and table-driven checks of the value syntaxes and helpers.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "config.h"
#include "rule.h"

#define GOOD_DIR SRCDIR "/tests/config/good"
#define BAD_DIR SRCDIR "/tests/config/bad"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static char *print_to_string(const struct mpt_config *cfg)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	mpt_config_print(cfg, f);
	fclose(f);
	return out;
}

/* Sorted *.conf names of a directory; returns the count. */
static size_t list_confs(const char *dir, char names[][128], size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 5 && l < 128 && strcmp(e->d_name + l - 5, ".conf") == 0 && n < max)
			memcpy(names[n++], e->d_name, l + 1);
	}
	closedir(d);
	qsort(names, n, 128, (int (*)(const void *, const void *))strcmp);
	return n;
}

/* Equal but for the line numbers, which differ between a file and its printed form. */
static void assert_same_config(const struct mpt_config *a, const struct mpt_config *b)
{
	static struct mpt_config x, y;

	x = *a;
	y = *b;
	assert_int_equal(a->npeers, b->npeers);
	for (unsigned i = 0; i < a->npeers; i++) {
		struct mpt_peer_config p = a->peers[i], q = b->peers[i];

		p.line = q.line = 0;
		assert_memory_equal(&p, &q, sizeof(p));
	}
	x.peers = y.peers = NULL;
	assert_int_equal(a->nrules, b->nrules);
	for (unsigned i = 0; i < a->nrules; i++)
		assert_true(mpt_rule_equal(&a->rules[i], &b->rules[i]));
	x.rules = y.rules = NULL;
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		x.paths[i].line = y.paths[i].line = 0;
	for (unsigned i = 0; i < MPT_MAX_OVERRIDES; i++) {
		x.sched_params[i].line = y.sched_params[i].line = 0;
		x.cc_params[i].line = y.cc_params[i].line = 0;
	}
	assert_memory_equal(&x, &y, sizeof(x));
}

static void test_good_golden(void **state)
{
	static char names[64][128];
	size_t n = list_confs(GOOD_DIR, names, 64);

	assert_true(n >= 5);
	for (size_t i = 0; i < n; i++) {
		struct mpt_config cfg, again;
		char path[512], err[512], *text, *want, *got, *got2;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", GOOD_DIR, names[i]);
		text = slurp(path, &len);
		if (mpt_config_parse(&cfg, names[i], text, len, err, sizeof(err)) < 0)
			fail_msg("%s should parse: %s", names[i], err);
		got = print_to_string(&cfg);
		snprintf(path + strlen(path) - 5, 8, ".out");
		want = slurp(path, NULL);
		if (strcmp(got, want) != 0)
			fail_msg("%s: normalised print differs from %s:\n%s", names[i], path, got);
		/* print -> parse -> print is a fixed point, and the struct is the same */
		if (mpt_config_parse(&again, names[i], got, strlen(got), err, sizeof(err)) < 0)
			fail_msg("%s: printed form does not parse: %s", names[i], err);
		got2 = print_to_string(&again);
		assert_string_equal(got, got2);
		assert_same_config(&cfg, &again);
		mpt_config_free(&cfg);
		mpt_config_free(&again);
		free(text);
		free(want);
		free(got);
		free(got2);
	}
	printf("good config cases: %zu\n", n);
}

/* Golden .err files name the registries' contents as @SCHED_LIST@ / @CC_LIST@ so that
 * adding a module does not rewrite them. */
static void expand_lists(char *want, size_t cap)
{
	char list[512], out[1024];
	const char *tok[] = { "@SCHED_LIST@", "@CC_LIST@" };

	for (int k = 0; k < 2; k++) {
		char *at = strstr(want, tok[k]);
		size_t n = k ? mpt_cc_count() : mpt_sched_count();

		if (!at)
			continue;
		list[0] = '\0';
		for (size_t i = 0; i < n; i++) {
			const char *name = k ? mpt_cc_at(i)->name : mpt_sched_at(i)->name;

			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", name);
		}
		*at = '\0';
		snprintf(out, sizeof(out), "%s%s%s", want, list, at + strlen(tok[k]));
		snprintf(want, cap, "%s", out);
	}
}

static void test_bad_golden(void **state)
{
	static char names[128][128];
	size_t n = list_confs(BAD_DIR, names, 128);

	assert_true(n >= 25);
	for (size_t i = 0; i < n; i++) {
		struct mpt_config cfg;
		char path[512], err[512], *text, *want, *nl;
		size_t len;
		int rc;

		snprintf(path, sizeof(path), "%s/%s", BAD_DIR, names[i]);
		text = slurp(path, &len);
		rc = mpt_config_parse(&cfg, names[i], text, len, err, sizeof(err));
		if (rc != -EINVAL)
			fail_msg("%s: expected -EINVAL, got %d", names[i], rc);
		assert_null(cfg.peers);		/* freed on error */
		snprintf(path + strlen(path) - 5, 8, ".err");
		want = slurp(path, NULL);
		nl = strchr(want, '\n');
		if (nl)
			*nl = '\0';
		{
			char expanded[1024];

			snprintf(expanded, sizeof(expanded), "%s", want);
			expand_lists(expanded, sizeof(expanded));
			free(want);
			want = strdup(expanded);
		}
		if (strcmp(err, want) != 0)
			fail_msg("%s:\n  got  %s\n  want %s", names[i], err, want);
		free(text);
		free(want);
	}
	printf("bad config cases: %zu\n", n);
}

/* A "Name = X" or "CC = X" naming a planned module the registries lack so far. */
static bool names_unregistered_module(const char *text, char *which, size_t len)
{
	static const char *const planned[] = { "cpf", "acpf", "minrtt", "egreedy", "exp3",
					       "olms", "wrr", "bbr", "cubic" };
	const char *line = text;

	for (; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char key[32], value[32];

		if (sscanf(line, " %31[A-Za-z] = %31[a-z0-9_]", key, value) != 2)
			continue;
		if (strcasecmp(key, "Name") != 0 && strcasecmp(key, "CC") != 0)
			continue;
		for (size_t i = 0; i < MPT_ARRAY_SIZE(planned); i++) {
			if (strcmp(value, planned[i]) == 0 && !mpt_sched_find(value) &&
			    !mpt_cc_find(value)) {
				snprintf(which, len, "%s", value);
				return true;
			}
		}
	}
	return false;
}

static void test_example_configs_load(void **state)
{
	static char names[32][128];
	size_t n = list_confs(SRCDIR "/configs", names, 32), loaded = 0;

	assert_true(n >= 3);
	for (size_t i = 0; i < n; i++) {
		struct mpt_config cfg;
		char path[512], err[512], mod[32], *text;

		snprintf(path, sizeof(path), "%s/configs/%s", SRCDIR, names[i]);
		text = slurp(path, NULL);
		if (names_unregistered_module(text, mod, sizeof(mod))) {
			printf("note: skipping configs/%s: module '%s' is not registered yet\n",
			       names[i], mod);
			free(text);
			continue;
		}
		free(text);
		if (mpt_config_load(&cfg, path, err, sizeof(err)) < 0)
			fail_msg("configs/%s: %s", names[i], err);
		mpt_config_free(&cfg);
		loaded++;
	}
	printf("example configs loaded: %zu of %zu\n", loaded, n);
}

/*
 * The man page documents each key as ".It Cm Key" under ".Ss [Section]"; compare
 * both ways with the parser's tables.
 */
static void test_man_page_keys(void **state)
{
	static const char *const sections[] = { "Interface", "Scheduler", "Congestion",
						"Path", "Peer", "Rule" };
	char *man = slurp(SRCDIR "/man/mptund.conf.5", NULL), *line, *save = NULL;
	char section[32] = "", documented[6][40][32];
	size_t ndoc[6] = { 0 }, total = 0;

	for (line = strtok_r(man, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[32];
		int s = -1;

		if (sscanf(line, ".Ss [%31[A-Za-z]]", section) == 1)
			continue;
		if (strncmp(line, ".Sh ", 4) == 0)
			section[0] = '\0';
		if (!section[0] || sscanf(line, ".It Cm %31[A-Za-z]", key) != 1)
			continue;
		for (int i = 0; i < 6; i++)
			if (strcmp(sections[i], section) == 0)
				s = i;
		if (s < 0)
			fail_msg("man page: unknown section [%s]", section);
		if (!mpt_config_key_name(section, 0))
			fail_msg("man page: section [%s] has no keys in the parser", section);
		{
			bool known = false;

			for (size_t i = 0; mpt_config_key_name(section, i); i++)
				known = known || strcmp(mpt_config_key_name(section, i), key) == 0;
			if (!known)
				fail_msg("man page documents [%s] %s, the parser does not know it",
					 section, key);
		}
		assert_true(ndoc[s] < 40);
		snprintf(documented[s][ndoc[s]++], 32, "%s", key);
	}
	for (int s = 0; s < 6; s++) {
		for (size_t i = 0; mpt_config_key_name(sections[s], i); i++) {
			const char *k = mpt_config_key_name(sections[s], i);
			bool found = false;

			for (size_t j = 0; j < ndoc[s]; j++)
				found = found || strcmp(documented[s][j], k) == 0;
			if (!found)
				fail_msg("[%s] %s is not documented in mptund.conf.5", sections[s], k);
			total++;
		}
	}
	free(man);
	printf("keys cross-checked with the man page: %zu\n", total);
}

static const char ue_priv[] = "uJyPIlpAFhxL5IQmw4eU4kMALlu9F2UQHZMj9ovlQHM=";
static const char ue_pub[] = "FcezX5QYFnJMSbN1wRb0cjgJ/n1pxrI4h80OBA0/lRM=";
static const char an_pub[] = "Fubm32/XV0GMQtEauio/JCCqcFXvEoNqqEG1GrN+YHE=";

/* A valid UE config with one extra line in [Interface] and in [Path]. */
static int parse_ue(struct mpt_config *cfg, const char *iface, const char *path,
		    char *err, size_t errlen)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "[Interface]\nRole = ue\nPrivateKey = %s\n%s\n"
		 "[Path]\nEndpoint = 192.0.2.1:1\n%s\n[Peer]\nPublicKey = %s\n",
		 ue_priv, iface, path, an_pub);
	return mpt_config_parse(cfg, "t.conf", text, strlen(text), err, errlen);
}

static void test_values_table(void **state)
{
	static const struct {
		const char *iface, *path;
		uint64_t probe_ns, hold_ns, rekey_ns, capacity;
	} cases[] = {
		{ "ProbeInterval = 200", "", 200 * MPT_NSEC_PER_MSEC, 0, 0, 0 },
		{ "ProbeInterval = 2s", "", 2 * MPT_NSEC_PER_SEC, 0, 0, 0 },
		{ "ProbeInterval = 1m", "", 60 * MPT_NSEC_PER_SEC, 0, 0, 0 },
		{ "ProbeInterval = 0.25s", "", 250 * MPT_NSEC_PER_MSEC, 0, 0, 0 },
		{ "ReorderMaxHold = 1500us", "", 0, 1500 * MPT_NSEC_PER_USEC, 0, 0 },
		{ "ReorderMaxHold = 0", "", 0, 1, 0, 0 },
		{ "RekeyAfterTime = 90", "", 0, 0, 90 * MPT_NSEC_PER_SEC, 0 },
		{ "RekeyAfterTime = 1h", "", 0, 0, 3600 * MPT_NSEC_PER_SEC, 0 },
		{ "", "Capacity = 50Mbit", 0, 0, 0, 6250000 },
		{ "", "Capacity = 1Gbit", 0, 0, 0, 125000000 },
		{ "", "Capacity = 6250000", 0, 0, 0, 6250000 },
		{ "", "Capacity = 1.5gbit", 0, 0, 0, 187500000 },
		{ "", "Capacity = 12bit", 0, 0, 0, 2 },		/* rounded up */
	};
	char err[256];

	for (size_t i = 0; i < MPT_ARRAY_SIZE(cases); i++) {
		struct mpt_config cfg;

		if (parse_ue(&cfg, cases[i].iface, cases[i].path, err, sizeof(err)) < 0)
			fail_msg("case %zu: %s", i, err);
		if (cases[i].probe_ns)
			assert_int_equal(cfg.probe_interval_ns, cases[i].probe_ns);
		if (cases[i].hold_ns)
			assert_int_equal(cfg.reorder_max_hold_ns,
					 cases[i].hold_ns == 1 ? 0 : cases[i].hold_ns);
		if (cases[i].rekey_ns)
			assert_int_equal(cfg.rekey_after_ns, cases[i].rekey_ns);
		if (cases[i].capacity)
			assert_int_equal(cfg.paths[0].capacity, cases[i].capacity);
		mpt_config_free(&cfg);
	}
}

static void test_defaults_and_derived_key(void **state)
{
	struct mpt_config cfg;
	char err[256], buf[64];

	assert_int_equal(parse_ue(&cfg, "", "", err, sizeof(err)), 0);
	assert_string_equal(cfg.tun_name, "mpt0");
	assert_int_equal(cfg.outer_mtu, 1500);
	assert_int_equal(mpt_config_inner_mtu(&cfg), 1409);
	assert_int_equal(cfg.probe_interval_ns, 200 * MPT_NSEC_PER_MSEC);
	assert_int_equal(cfg.probe_miss_limit, 5);
	assert_int_equal(cfg.queue_limit, 1024);
	assert_int_equal(cfg.reorder_buffer, 1024);
	assert_int_equal(cfg.reorder_max_hold_ns, 250 * MPT_NSEC_PER_MSEC);
	assert_int_equal(cfg.reorder_margin_ns, 5 * MPT_NSEC_PER_MSEC);
	assert_int_equal(cfg.rekey_after_ns, 120 * MPT_NSEC_PER_SEC);
	assert_int_equal(cfg.rekey_after_packets, 1ULL << 22);
	assert_int_equal(cfg.cipher, MPT_CIPHER_CHACHA20_POLY1305);
	/* issue 21: a minimal config gets the per-path BBR controller and the scheduler
	 * that measured best for bonding with a cost preference, and loss recovery */
	assert_string_equal(cfg.sched, "cpf");
	assert_string_equal(cfg.cc, "bbr");
	assert_int_equal(cfg.recovery, MPT_RECOVERY_RETRANSMIT);
	assert_string_equal(cfg.ctl_path, "/run/mptund/t.sock");
	assert_string_equal(cfg.paths[0].name, "path0");
	assert_string_equal(cfg.peers[0].name, "peer0");
	/* the public key wg pubkey derives from ue_priv */
	{
		char *out = print_to_string(&cfg);

		snprintf(buf, sizeof(buf), "# PublicKey = %s ", ue_pub);
		assert_non_null(strstr(out, buf));
		free(out);
	}
	mpt_config_free(&cfg);
}

static void test_apply_overrides(void **state)
{
	const struct mpt_cc_ops *fixed = mpt_cc_find("fixed");
	struct mpt_config cfg;
	struct mpt_cc cc;
	char err[256];
	char text[1024];

	assert_non_null(fixed);
	snprintf(text, sizeof(text),
		 "[Interface]\nRole = ue\nPrivateKey = %s\n[Congestion]\nName = fixed\nWINDOW = 12345\n"
		 "[Path]\nEndpoint = 192.0.2.1:1\n[Peer]\nPublicKey = %s\n", ue_priv, an_pub);
	assert_int_equal(mpt_config_parse(&cfg, "o.conf", text, strlen(text), err,
					  sizeof(err)), 0);
	mpt_cc_prepare(&cc, fixed);
	assert_int_equal(mpt_config_apply_cc(&cfg, fixed, cc.priv, err, sizeof(err)), 0);
	assert_int_equal(mpt_param_get(&fixed->params[0], cc.priv), 12345);
	/* an override that became invalid (edited struct) is reported with file:line */
	snprintf(cfg.cc_params[0].value, sizeof(cfg.cc_params[0].value), "1");
	assert_int_equal(mpt_config_apply_cc(&cfg, fixed, cc.priv, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "o.conf:6: window: '1' is out of range"));
	mpt_config_free(&cfg);
}

static void test_prefix_and_sockaddr(void **state)
{
	static const struct {
		const char *prefix, *addr;
		bool inside;
	} cases[] = {
		{ "10.7.0.0/24", "10.7.0.200", true },
		{ "10.7.0.0/24", "10.7.1.1", false },
		{ "10.7.0.5", "10.7.0.5", true },
		{ "0.0.0.0/0", "198.51.100.7", true },
		{ "fd07::/64", "fd07::99", true },
		{ "fd07::/64", "fd08::1", false },
		{ "fd07::/64", "10.7.0.1", false },
		{ "10.7.0.0/25", "10.7.0.128", false },
	};
	struct sockaddr_storage ss;
	struct mpt_prefix p;
	char buf[64];

	for (size_t i = 0; i < MPT_ARRAY_SIZE(cases); i++) {
		unsigned char a[16];
		int fam = strchr(cases[i].addr, ':') ? AF_INET6 : AF_INET;

		assert_int_equal(mpt_prefix_parse(cases[i].prefix, &p), 0);
		assert_int_equal(inet_pton(fam, cases[i].addr, a), 1);
		assert_int_equal(mpt_prefix_contains(&p, fam, a), cases[i].inside);
	}
	assert_int_equal(mpt_prefix_parse("10.0.0.1/33", &p), -EINVAL);
	assert_int_equal(mpt_prefix_parse("fd00::/129", &p), -EINVAL);
	assert_int_equal(mpt_prefix_parse("10.0.0/8", &p), -EINVAL);
	assert_int_equal(mpt_prefix_parse("fd00::1/64", &p), 0);
	assert_int_equal(mpt_prefix_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fd00::1/64");

	assert_int_equal(mpt_sockaddr_parse("[2001:db8::1]:443", 0, &ss), 0);
	assert_int_equal(mpt_sockaddr_format(&ss, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "[2001:db8::1]:443");
	assert_int_equal(mpt_sockaddr_parse("192.0.2.1", 51820, &ss), 0);
	assert_int_equal(mpt_sockaddr_format(&ss, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "192.0.2.1:51820");
	assert_int_equal(mpt_sockaddr_parse("192.0.2.1", 0, &ss), -EINVAL);
	assert_int_equal(mpt_sockaddr_parse("192.0.2.1:0", 0, &ss), -EINVAL);
	assert_int_equal(mpt_sockaddr_parse("192.0.2.1:65536", 0, &ss), -EINVAL);
	assert_int_equal(mpt_sockaddr_parse("[::1]x", 0, &ss), -EINVAL);
	assert_int_equal(mpt_sockaddr_parse("host.example:1", 0, &ss), -EINVAL);
}

static void test_check_main(void **state)
{
	char *out = NULL, *errs = NULL;
	size_t olen = 0, elen = 0;
	FILE *o = open_memstream(&out, &olen), *e = open_memstream(&errs, &elen);

	assert_int_equal(mpt_config_check_main(SRCDIR "/configs/ue-single.conf", o, e), 0);
	assert_int_equal(mpt_config_check_main(BAD_DIR "/bad-cost.conf", o, e), 1);
	assert_int_equal(mpt_config_check_main("/nonexistent/x.conf", o, e), 1);
	fclose(o);
	fclose(e);
	assert_non_null(strstr(out, "[Interface]\nRole = ue\n"));
	assert_non_null(strstr(errs, "bad-cost.conf:10: Cost: 'ten' is not a number\n"));
	assert_non_null(strstr(errs, "/nonexistent/x.conf: No such file or directory\n"));
	free(out);
	free(errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_golden),
		cmocka_unit_test(test_bad_golden),
		cmocka_unit_test(test_example_configs_load),
		cmocka_unit_test(test_man_page_keys),
		cmocka_unit_test(test_values_table),
		cmocka_unit_test(test_defaults_and_derived_key),
		cmocka_unit_test(test_apply_overrides),
		cmocka_unit_test(test_prefix_and_sockaddr),
		cmocka_unit_test(test_check_main),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
