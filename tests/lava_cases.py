#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The LAVA test cases lava/isolbench.sh must report for the JSON results
of the given tests (DIR/TEST.json), made here by another hand than the
script's, one "NAME RESULT [MEASUREMENT UNITS]" a line, in its order:
per verdict TEST.<its description, each run of characters outside
[A-Za-z0-9_-] one "_", no "_" at either end>, cut to 100 characters,
a name met again with _2, _3, ...; then per metric with a label (the
paste line) TEST.METRIC, pass with the mean and the unit, or skip when
it has no mean.  Used by tests/lava.t and vm/lava.t.

Usage: lava_cases.py DIR TEST...
"""

import json
import os
import re
import sys

NAME_MAX = 100


def cases(result, test):
    seen = set()

    def unique(name):
        name = base = name[:NAME_MAX]
        n = 2
        while name in seen:
            suffix = "_%d" % n
            name = base[:NAME_MAX - len(suffix)] + suffix
            n += 1
        seen.add(name)
        return name

    for verdict in result["verdicts"]:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "_", verdict["name"]).strip("_")
        yield "%s %s" % (unique(test + "." + (slug or "check")), verdict["result"])
    for metric in result["metrics"]:
        if "label" not in metric:
            continue
        name = unique(test + "." + metric["name"])
        mean = metric.get("summary", {}).get("mean")
        if mean is None:
            yield name + " skip"
        else:
            yield "%s pass %.12g %s" % (name, mean, metric["unit"])


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().split("\n")[-1], file=sys.stderr)
        return 2
    for test in sys.argv[2:]:
        with open(os.path.join(sys.argv[1], test + ".json"), encoding="utf-8") as f:
            for line in cases(json.load(f), test):
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
