/* SPDX-License-Identifier: MIT */
/*
 * mptund-ctl subcommands: a table of {name, fn, usage, help}, and the program's logic
 * (ctl_main), kept out of src/ctl/ctl_main.c so that tests can run it in-process.
 *
 * Exit codes, stable for scripts:
 *	0  success
 *	1  the daemon answered with an error (its message is printed)
 *	2  usage error (bad option or argument, several instances and no -i)
 *	3  cannot talk to the daemon (no socket, connect failed, connection lost)
 */
#ifndef MPTUND_CTL_CMDS_H
#define MPTUND_CTL_CMDS_H

#include <stdio.h>

#include "ctl_fmt.h"

enum {
	CTL_EXIT_OK = 0,
	CTL_EXIT_DAEMON = 1,
	CTL_EXIT_USAGE = 2,
	CTL_EXIT_CONNECT = 3,
};

/* Options a subcommand accepts (ctl_cmd.opts). */
#define CTL_OPT_JSON		0x1
#define CTL_OPT_INTERVAL	0x2
#define CTL_OPT_SESSION		0x4

struct ctl_opts {
	const char *socket, *instance;
	const char *session;
	unsigned interval_ms;
	unsigned given;			/* CTL_OPT_* seen on the command line */
	const struct ctl_backend *be;	/* text or json */
	FILE *out, *err;
	char sockpath[256];
};

struct ctl_cmd {
	const char *name;
	int (*fn)(struct ctl_opts *o, int argc, char **argv);
	const char *usage;		/* arguments after the name */
	const char *help;
	unsigned opts;
};

extern const struct ctl_cmd ctl_cmds[];
extern const size_t ctl_ncmds;

/* The whole program; returns the exit code. */
int ctl_main(int argc, char **argv, FILE *out, FILE *err);

#endif
