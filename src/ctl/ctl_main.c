// SPDX-License-Identifier: MIT
/* mptund-ctl: control the mptund daemon through its Unix socket (see ctl_cmds.h). */
#include <stdio.h>

#include "ctl_cmds.h"

int main(int argc, char **argv)
{
	return ctl_main(argc, argv, stdout, stderr);
}
