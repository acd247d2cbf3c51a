#!/usr/bin/env python3
"""Compare two `nqueens bench --json` reports: machine A against machine B.

For every test (board size n on a thread count) present in both reports it prints the two
median wall times and the ratio A / B, i.e. how many times faster B is (2.00x: B takes half
the time; 0.50x: B is twice as slow). Then the same for the whole workload on each thread
count, the single- and multi-thread scores (ratio B / A, the same sense), and overall the
geometric mean of the per-test ratios.

Reports are comparable only when the workload id and the program version agree; otherwise
the script still compares the tests it can match but says so on stderr.

Usage:  python3 scripts/compare-bench.py A.json B.json
Exit:   0 compared, 2 unreadable report or nothing in common.
Python 3.11 standard library only.
"""

import json
import math
import sys

REPORT_FORMAT = 1


def fail(message):
    print(f"compare-bench: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    if not isinstance(report, dict) or report.get("report_format") != REPORT_FORMAT:
        found = report.get("report_format") if isinstance(report, dict) else None
        fail(f"cannot read {path}: report_format is {found!r}, expected {REPORT_FORMAT} (a nqueens bench --json report)")
    return report


def describe(label, r):
    m = r["machine"]
    return (f"{label}: {m['cpu_model']}, {m['logical_cores']} logical / {m['physical_cores']} physical cores, "
            f"{m['program']}, workload {r['workload']['id']}, {r['runs']} runs")


def ratio_text(x):
    return f"{x:.2f}x"


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: compare-bench.py A.json B.json", file=sys.stderr)
        return 2
    a, b = load(argv[1]), load(argv[2])
    if a["workload"]["id"] != b["workload"]["id"]:
        print(f"warning: different workloads ({a['workload']['id']} vs {b['workload']['id']}): "
              "scores are not comparable, matching tests are", file=sys.stderr)
    if a["machine"]["program"] != b["machine"]["program"]:
        print(f"warning: different programs ({a['machine']['program']} vs {b['machine']['program']}): "
              "differences may come from the engine, not the CPU", file=sys.stderr)
    for label, r in (("A", a), ("B", b)):
        for w in r.get("warnings", []):
            print(f"warning: {label}: {w['message']}", file=sys.stderr)

    print(describe("A", a))
    print(describe("B", b))
    print()
    print(f"{'test':<22} {'A median s':>11} {'B median s':>11} {'A/B':>8}")
    tests_b = {(t["n"], t["threads"]): t for t in b["tests"]}
    ratios = []
    for t in a["tests"]:
        other = tests_b.get((t["n"], t["threads"]))
        if other is None:
            print(f"n={t['n']} threads={t['threads']:<9} only in A")
            continue
        ta, tb = t["time"]["median_seconds"], other["time"]["median_seconds"]
        ratio = ta / tb
        ratios.append(ratio)
        print(f"{'n=%d threads=%d' % (t['n'], t['threads']):<22} {ta:>11.4f} {tb:>11.4f} {ratio_text(ratio):>8}")
    tests_a = {(t["n"], t["threads"]) for t in a["tests"]}
    for key in sorted(set(tests_b) - tests_a):
        print(f"n={key[0]} threads={key[1]:<9} only in B")
    if not ratios:
        fail("the reports have no test in common")

    print()
    print(f"{'workload':<22} {'A median s':>11} {'B median s':>11} {'A/B':>8}")
    rows_b = {row["threads"]: row for row in b["scaling"]}
    for row in a["scaling"]:
        other = rows_b.get(row["threads"])
        if other is not None:
            ta, tb = row["time"]["median_seconds"], other["time"]["median_seconds"]
            print(f"{'threads=%d' % row['threads']:<22} {ta:>11.4f} {tb:>11.4f} {ratio_text(ta / tb):>8}")

    print()
    print(f"{'score (runs/hour)':<22} {'A':>11} {'B':>11} {'B/A':>8}")
    sa, sb = a["single_thread_score"], b["single_thread_score"]
    print(f"{'single-thread':<22} {sa:>11.1f} {sb:>11.1f} {ratio_text(sb / sa):>8}")
    ma, mb = a["multi_thread_score"], b["multi_thread_score"]
    label = f"multi-thread ({a['multi_threads']}/{b['multi_threads']})"
    print(f"{label:<22} {ma:>11.1f} {mb:>11.1f} {ratio_text(mb / ma):>8}")
    print(f"{'speed-up':<22} {ratio_text(a['speedup']):>11} {ratio_text(b['speedup']):>11}")
    print(f"{'parallel efficiency':<22} {a['efficiency'] * 100:>10.1f}% {b['efficiency'] * 100:>10.1f}%")
    print()
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"overall: B is {ratio_text(geo)} as fast as A (geometric mean of {len(ratios)} test ratios A/B)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
