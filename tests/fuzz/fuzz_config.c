// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: mptund.conf parser. Any byte string must give 0 or -EINVAL with a
 * message, never a crash, leak or read past the buffer. A parsed config is also printed
 * and the printed form must parse again (the --check fixed point).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpt_config cfg, again;
	char err[512], *out = NULL;
	size_t len = 0;
	FILE *f;

	if (mpt_config_parse(&cfg, "fuzz.conf", (const char *)data, size, err,
			     sizeof(err)) < 0)
		return 0;
	f = open_memstream(&out, &len);
	if (f) {
		mpt_config_print(&cfg, f);
		fclose(f);
		if (mpt_config_parse(&again, "fuzz.conf", out, len, err, sizeof(err)) < 0)
			abort();	/* the normalised form must be valid */
		mpt_config_free(&again);
		free(out);
	}
	mpt_config_free(&cfg);
	return 0;
}
