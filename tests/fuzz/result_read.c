// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes through the result-file reader (the JSON
 * parser, then the isolbench-result checks and the statistics). Built by
 * `make fuzz` with clang -fsanitize=fuzzer,address,undefined; see
 * docs/compare.md for a long run. tests/fuzz.t runs it briefly.
 */
#include <stddef.h>
#include <stdint.h>

#include "lib/result/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result r;
	char err[256];

	if (!result_parse((const char *)data, size, &r, err, sizeof(err)))
		result_free(&r);
	return 0;
}
