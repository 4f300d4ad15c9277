// SPDX-License-Identifier: MIT
/*
 * mptund — multipath tunnel daemon. Entry point: command line, the helper
 * subcommands (genkey, pubkey, --check, --version) and the daemon's life.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mptund/cc.h>
#include <mptund/sched.h>

#include "config.h"
#include "ctl_glue.h"
#include "daemon.h"
#include "keys.h"
#include "log.h"
#include "sys.h"

static void usage(FILE *f)
{
	fputs("usage: mptund [-d] -c FILE        run the tunnel (foreground)\n"
	      "       mptund --check -c FILE     validate FILE, print it normalised\n"
	      "       mptund genkey              print a new private key\n"
	      "       mptund pubkey              private key on stdin -> public key\n"
	      "       mptund --version           version, schedulers, controllers\n"
	      "See mptund(8) and mptund.conf(5).\n", f);
}

static int cmd_version(void)
{
	printf("mptund %s\nschedulers:", MPTUND_VERSION);
	for (size_t i = 0; i < mpt_sched_count(); i++)
		printf(" %s", mpt_sched_at(i)->name);
	printf("\ncongestion controllers:");
	for (size_t i = 0; i < mpt_cc_count(); i++)
		printf(" %s", mpt_cc_at(i)->name);
	printf("\nciphers: chacha20-poly1305 aes-256-gcm\n");
	return 0;
}

static int cmd_genkey(void)
{
	uint8_t rnd[MPT_KEY_SIZE], priv[MPT_KEY_SIZE];
	char b64[MPT_KEY_B64_LEN + 1];

	if (mpt_random_bytes(rnd, sizeof(rnd)) < 0) {
		fprintf(stderr, "mptund genkey: getrandom: %s\n", strerror(errno));
		return 1;
	}
	mpt_key_private_from_random(priv, rnd);
	mpt_key_to_base64(b64, priv);
	puts(b64);
	explicit_bzero(rnd, sizeof(rnd));
	explicit_bzero(priv, sizeof(priv));
	return 0;
}

static int cmd_pubkey(void)
{
	uint8_t priv[MPT_KEY_SIZE], pub[MPT_KEY_SIZE];
	char line[128], b64[MPT_KEY_B64_LEN + 1];
	size_t n;

	if (!fgets(line, sizeof(line), stdin)) {
		fputs("mptund pubkey: no private key on standard input\n", stderr);
		return 1;
	}
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (mpt_key_from_base64(priv, line) < 0) {
		fprintf(stderr, "mptund pubkey: '%.60s' is not a base64 key of 32 bytes\n",
			line);
		return 1;
	}
	if (mpt_key_public(pub, priv) < 0) {
		fputs("mptund pubkey: cannot derive the public key\n", stderr);
		return 1;
	}
	mpt_key_to_base64(b64, pub);
	puts(b64);
	explicit_bzero(priv, sizeof(priv));
	explicit_bzero(line, sizeof(line));
	return 0;
}

/* The control socket, plugged into the daemon from above (src/README.md). */
static const struct mpt_daemon_ops daemon_ops = {
	.ctl_open = mpt_ctl_glue_open,
	.ctl_close = mpt_ctl_glue_close,
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "debug", no_argument, NULL, 'd' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mpt_daemon d;	/* the daemon's state: main owns it */
	const char *config = NULL;
	bool check = false, debug = false;
	char err[1024], *base, *dot, tmp[256];
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:dhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'd':
			debug = true;
			break;
		case 'V':
			return cmd_version();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		if (!strcmp(argv[optind], "genkey") && optind + 1 == argc)
			return cmd_genkey();
		if (!strcmp(argv[optind], "pubkey") && optind + 1 == argc)
			return cmd_pubkey();
		fprintf(stderr, "mptund: unknown command '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!config) {
		usage(stderr);
		return 2;
	}
	if (check)
		return mpt_config_check_main(config, stdout, stderr);

	log_init(debug ? LOG_DEBUG : LOG_INFO, getenv("JOURNAL_STREAM") != NULL);
	memset(&d, 0, sizeof(d));
	snprintf(tmp, sizeof(tmp), "%s", config);
	base = basename(tmp);
	dot = strrchr(base, '.');
	if (dot && !strcmp(dot, ".conf"))
		*dot = '\0';
	snprintf(d.instance, sizeof(d.instance), "%s", base);
	d.ops = &daemon_ops;
	ret = mpt_daemon_start(&d, config, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "mptund: %s\n", err);
		return 1;
	}
	if (debug)
		log_set_level(LOG_DEBUG);
	ev_run(d.loop, 0);
	mpt_daemon_stop(&d);
	log_info("stopped");
	return 0;
}
