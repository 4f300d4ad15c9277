// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what a UE reads from the anchor's RULES frames
 * (mptund-proto(7)): the frame decoder over any bytes, and the rule-set text parser
 * (rule.c, mpt_rule_parse_set) over the frame's text, as the UE parses a reassembled
 * set. A set that parses must print, rule by rule, to specs that parse back to the
 * same rules (the normalised form is a fixed point).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mptund/wire.h>

#include "rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mpt_rule rules[MPT_MAX_RULES];

static void check_set(const char *text, size_t len)
{
	char err[320], spec[MPT_RULE_SPEC_MAX];
	unsigned n;

	if (mpt_rule_parse_set(text, len, rules, MPT_MAX_RULES, &n, err, sizeof(err)) < 0) {
		if (!err[0])
			abort();	/* a refusal always says why */
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct mpt_rule again;
		int k = mpt_rule_format(&rules[i], spec, sizeof(spec));

		if (k < 0)
			continue;
		if (mpt_rule_parse(&again, spec, (size_t)k, err, sizeof(err)) < 0 ||
		    !mpt_rule_equal(&rules[i], &again))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *pos = data, *end = data + size;
	struct mpt_frame f;

	/* as frames: a RULES frame's text is what the UE would reassemble */
	while (mpt_frame_next(&pos, end, &f) == 1)
		if (f.type == MPT_FRAME_RULES && f.u.rules.count &&
		    (f.u.rules.index >= f.u.rules.count || f.u.rules.len > MPT_RULES_FRAG_MAX))
			abort();
	/* as text */
	check_set((const char *)data, size);
	return 0;
}
