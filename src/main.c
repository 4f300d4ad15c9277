// SPDX-License-Identifier: MIT
/* mptund — placeholder entry point until the daemon lands. */
#include <stdio.h>
int main(void)
{
	fputs("mptund: not yet implemented\n", stderr);
	return 1;
}
