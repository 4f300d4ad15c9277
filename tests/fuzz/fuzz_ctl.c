// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the control-protocol request parser over arbitrary bytes, the way
 * the server drives it (parse, skip what it consumed, stop on -EAGAIN or an
 * unrecoverable error), with invariants: consumption within the input, a successful
 * parse has a known command and only keys it accepts, errors always carry a message.
 * Also feeds the same bytes to mptund-ctl's reply parser.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_kv.h"
#include "ctl_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mpt_ctl_req req;
	const char *buf = (const char *)data;
	size_t off = 0, used;
	char err[160];

	while (off < size) {
		int rc = mpt_ctl_parse(buf + off, size - off, &req, &used, err, sizeof(err));

		if (rc == -EAGAIN)
			break;
		if (used > size - off)
			abort();
		if (rc == 0) {
			if (req.cmd >= MPT_CTL_CMD_MAX || req.nkv >= MPT_CTL_MAX_KEYS || !used)
				abort();
			for (unsigned i = 0; i < req.nkv; i++)
				if (!req.kv[i].key[0] || strchr(req.kv[i].val, '\n'))
					abort();
		} else if (!err[0]) {
			abort();
		}
		if (used == 0)
			break;
		off += used;
	}
	{
		struct ctl_kvl kv = { 0 };
		int err_no;
		long n = ctl_reply_parse(buf, size, &kv, &err_no, err, sizeof(err));

		if (n > (long)size)
			abort();
		ctl_kvl_free(&kv);
	}
	return 0;
}
