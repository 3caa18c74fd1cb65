#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What a LAVA job of lava/isolbench.yaml recorded, read from its log.

The log is lava-run's output (lava/qemu-job.sh keeps it as output.yaml),
or a lab's job log (lava-server keeps the same lines, `lavacli jobs logs
ID`): one YAML mapping a line.  Its "results" lines are the test cases
lava-server stores; this prints those of the test definitions (not
LAVA's own actions) one a line, as lava/isolbench.sh reported them:

    NAME RESULT [MEASUREMENT UNITS]

With --json DIR it also writes the JSON results lava/isolbench.sh
printed into the log (between its isolbench-json-begin/-end lines) to
DIR/NAME.json (undoing the one change LAVA makes to the device's
output in its log, '"' written as '\\"').  Exit status: 0, or 2 when the log cannot be read.
"""

import argparse
import os
import sys

import yaml

BEGIN = "isolbench-json-begin "
END = "isolbench-json-end "


def log_records(path):
    """The records of a job log, in order."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = yaml.load(line, Loader=yaml.SafeLoader)
            except yaml.YAMLError as err:
                raise ValueError("line %d is not a log record: %s" % (number, err))
            if isinstance(record, list):  # lava-server's output.yaml: "- {...}"
                record = record[0] if record else None
            if isinstance(record, dict):
                yield record


def case_line(msg):
    """A test case of a results record, as lava/isolbench.sh reported it."""
    words = [msg["case"], msg["result"]]
    if "measurement" in msg:
        words.append("%.12g" % float(msg["measurement"]))
        if msg.get("units"):
            words.append(str(msg["units"]))
    return " ".join(str(w) for w in words)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", help="the job's log (lava-run's output)")
    parser.add_argument("--json", metavar="DIR", help="write the JSON results here")
    args = parser.parse_args()

    cases, documents, current = [], {}, None
    try:
        for record in log_records(args.log):
            msg = record.get("msg")
            if record.get("lvl") == "results" and isinstance(msg, dict):
                if msg.get("definition") not in (None, "lava") and "case" in msg:
                    cases.append(case_line(msg))
            elif record.get("lvl") == "target" and isinstance(msg, str):
                if msg.startswith(BEGIN):
                    current = os.path.basename(msg[len(BEGIN):].strip())
                    documents[current] = []
                elif msg.startswith(END):
                    current = None
                elif current is not None:
                    # LAVA logs each '"' of the device's output as '\"'
                    documents[current].append(msg.replace('\\"', '"'))
    except (OSError, ValueError) as err:
        print("job-results.py: %s: %s" % (args.log, err), file=sys.stderr)
        return 2
    for line in cases:
        print(line)
    if args.json:
        os.makedirs(args.json, exist_ok=True)
        for name, lines in documents.items():
            with open(os.path.join(args.json, name), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
