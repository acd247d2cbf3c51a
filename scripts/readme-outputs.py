#!/usr/bin/env python3
"""Re-runs the README's console examples, and writes their real output back or checks it.

Usage: scripts/readme-outputs.py [--binary PATH] [--check] [--quick] [--slow-after S] [README]

Every fenced block that opens with ```console is an example to re-run: each line that starts
with "$ " is run with bash (pipefail, stdin from /dev/null, stdout and stderr together),
in one scratch directory for the whole README (so a block can use the files an earlier one
wrote), with the binary's directory first on PATH and the scratch directory as the working
directory; the lines after it, up to the next "$ " line or the end of the block, become its
output. Other blocks (```text, ```sh, ...) are left as written: captures that cannot be
re-run here (a progress bar on a terminal, an MPI run, a Slurm submission), each saying in
the README where and when it was captured.

Modes:
  (default)  re-run every console block and write the README back. Times and speeds differ
             from run to run, so the README changes each time: read the diff.
  --check    write nothing; exit 1 if any block's output differs from the README's once
             run-to-run figures are masked (below), printing a diff of each such block
             with its line number; exit 0 if all match.
  --quick    skip the blocks marked slow (left as written; with --check, not checked).
             A block is marked slow by an HTML comment on the last non-blank line before
             its fence, "<!-- slow -->" or "<!-- slow: why -->" (GitHub does not show it).
             Mark a block slow when it takes more than a few seconds on 2 cores, or when its
             output depends on timing (a count interrupted after 2 s). A quick block must
             not read files that only a slow block writes.
  --slow-after S
             after a run, name the unmarked blocks that took more than S seconds (default
             5) on stderr, so they get a marker. Informational: the exit code ignores it.

What --check masks (on both sides, before comparing line by line):
  - runs of spaces and tabs (columns widen with their numbers), leading/trailing spaces;
  - every number with a fractional part or exponent (times, speeds, rates, percentages,
    scores, sizes like 8.0 MiB, version numbers like 0.1.0), and a k/M/G/T prefix after it;
  - a time with its unit (12 s, 9 ns, 4.7 days, 2 min 51 s, ...: the unit may change with
    the machine), a rate ending in /s, a peak memory figure (peak 424.5 MiB) and every
    percentage;
  - dates (2026-12-03) and clock times (18:52, [00:00:07]);
  - hex identifiers: 16 hex digits (plan ids), 8 or more with a letter and a digit among
    them, and the digest ending a checkpoint record, so a new plan version does not fail
    the check;
  - the thread count where it is the machine's (a "threads N" line, "threads": N, "N
    thread(s)", "(N threads)");
  - the machine description lines of bench (cpu, system, code, load);
  - how far an interrupted count got ("13,824 of 24,329 units are saved": the first number);
  - lines that come and go with machine noise: bench's "warning: ..." lines and "N
    warning(s), see ...".
Everything else is compared exactly: counts, nodes, pattern pairs, unit counts, table
sizes in bytes, messages and their layout.

Exit codes: 0 done (or every block matched), 1 a block differs (--check), 2 usage error or
no binary. Default binary: target/release/nqueens (build it first: cargo build --release).
"""

import difflib
import os
import re
import subprocess
import sys
import tempfile
import time

FENCE = "```"
SLOW = re.compile(r"^<!--\s*slow\b.*-->$")

# Lines dropped before comparing: they appear or not with the machine's noise.
DROPPED = [
    re.compile(r"^warning: "),
    re.compile(r"^\d+ warning\(s\)"),
]

# (pattern, replacement), applied in order to each line before comparing.
MASKS = [
    # bench's description of the machine
    (re.compile(r"^(cpu|system|code|load)\s.*$"), r"\1 <machine>"),
    # dates and clock times
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    (re.compile(r"\b\d{1,2}:\d{2}(:\d{2})?\b"), "<clock>"),
    # hex ids and digests (before the numbers: a digest may start with digits)
    (re.compile(r"\b[0-9a-f]{16}\b"), "<id>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,}\b"), "<hex>"),
    (re.compile(r"^(\d+ \d+ \d+ \d+/\d+,\d+/\d+) [0-9a-f]{8}$"), r"\1 <hex>"),  # a checkpoint record
    # how far an interrupted count got
    (re.compile(r"\b\d[\d,]* of ([\d,]+ units (are saved|already done))"), r"<k> of \1"),
    # thread counts that are the machine's
    (re.compile(r"^threads\s+\d+"), "threads <t>"),
    (re.compile(r'"threads":\s*\d+'), '"threads":<t>'),
    (re.compile(r"\b\d+ thread\(s\)"), "<t> thread(s)"),
    (re.compile(r"\(\d+ threads\)"), "(<t> threads)"),
    # peak memory
    (re.compile(r'"peak_bytes":\s*\d+'), '"peak_bytes":<mem>'),
    (re.compile(r"\bpeak [\d.,]+ ?[KMGT]?i?B\b"), "peak <mem>"),
    # numbers with a fraction or exponent, and a unit prefix after them
    # (no word boundary after the fraction: "1.84x" is a speed-up)
    (re.compile(r"\b\d+(\.\d+)+([eE][-+]?\d+)?|\b\d+[eE][-+]?\d+\b"), "<x>"),
    (re.compile(r"<x> ?[kKMGTP](?=\b|pairs|nodes)"), "<x>"),
    # rates and times with their units (integers too: the unit changes with the size)
    (re.compile(r"(<x>|\b\d[\d,]*) ?[kKMGTP]?(pairs|nodes|solutions)?/s\b"), "<rate>"),
    (
        re.compile(r"(<x>|\b\d[\d,]*) ?(ns|µs|ms|s|min|minutes|h|hours|days|years|CPU-years)\b"),
        "<time>",
    ),
    # "2 min 51 s" is one time, as "21.4 s" is
    (re.compile(r"<time>( <time>)+"), "<time>"),
    # whole percentages (a breakdown of where the time went)
    (re.compile(r"\b\d+%"), "<x>%"),
    # whitespace last: columns widen and narrow with the numbers in them
    (re.compile(r"\s+"), " "),
]


def mask(lines):
    out = []
    for line in lines:
        if any(p.search(line) for p in DROPPED):
            continue
        for pattern, repl in MASKS:
            line = pattern.sub(repl, line)
        out.append(line.strip())
    return out


def run(cmd, cwd, env):
    p = subprocess.run(
        ["bash", "-o", "pipefail", "-c", cmd],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=900,
    )
    out = p.stdout.decode("utf-8", "replace").rstrip("\n")
    return out.split("\n") if out else []


def usage(msg):
    print(f"readme-outputs: {msg} (see --help)", file=sys.stderr)
    return 2


def main(argv):
    binary = "target/release/nqueens"
    check = quick = False
    slow_after = 5.0
    readme = "README.md"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--binary" and args:
            binary = args.pop(0)
        elif a == "--check":
            check = True
        elif a == "--quick":
            quick = True
        elif a == "--slow-after" and args:
            try:
                slow_after = float(args.pop(0))
            except ValueError:
                return usage("--slow-after takes a number of seconds")
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            return usage(f"unknown option {a}")
        else:
            readme = a
    binary = os.path.abspath(binary)
    if not os.access(binary, os.X_OK):
        print(f"readme-outputs: no binary at {binary}: cargo build --release first", file=sys.stderr)
        return 2
    bintemp = tempfile.TemporaryDirectory(prefix="readme-bin-")  # removed at exit
    bindir = os.path.join(bintemp.name, "bin")
    os.makedirs(bindir)
    os.symlink(binary, os.path.join(bindir, "nqueens"))
    scripts = os.path.abspath(os.path.dirname(__file__))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], COLUMNS="100")
    env.pop("NQUEENS_KERNEL", None)
    env["README_SCRIPTS"] = scripts
    lines = open(readme, encoding="utf-8").read().split("\n")
    out, differs, slow_unmarked = [], [], []
    ran = skipped = 0
    with tempfile.TemporaryDirectory(prefix="readme-run-") as work:
        i = 0
        last = ""  # the last non-blank line before the current one
        while i < len(lines):
            line = lines[i]
            out.append(line)
            i += 1
            if line.strip() != FENCE + "console":
                if line.startswith(FENCE) and line.strip() != FENCE:
                    # another kind of block: copy it through unchanged
                    while i < len(lines) and lines[i].strip() != FENCE:
                        out.append(lines[i])
                        i += 1
                if line.strip():
                    last = line.strip()
                continue
            start = i  # 0-based index of the block's first line = 1-based line of its fence
            slow = bool(SLOW.match(last))
            last = line.strip()
            old = []
            while i < len(lines) and lines[i].strip() != FENCE:
                old.append(lines[i])
                i += 1
            if quick and slow:
                out.extend(old)
                skipped += 1
                continue
            new, began = [], time.monotonic()
            for l in old:
                if l.startswith("$ "):
                    new.append(l)
                    new.extend(run(l[2:], work, env))
            took = time.monotonic() - began
            ran += 1
            if took > slow_after and not slow:
                slow_unmarked.append((start, took))
            out.extend(new)
            if mask(old) != mask(new):
                differs.append((start, old, new))
    for start, took in slow_unmarked:
        print(
            f"readme-outputs: {readme}:{start}: this block took {took:.1f} s and is not marked "
            "<!-- slow -->",
            file=sys.stderr,
        )
    if check:
        for start, old, new in differs:
            print(f"{readme}:{start}: the output differs (run-to-run figures masked):")
            diff = difflib.unified_diff(mask(old), mask(new), "README", "now", lineterm="", n=1)
            print("\n".join(list(diff)[2:]))
            print("now, unmasked:\n" + "\n".join(new) + "\n")
        what = f"{ran} block(s) run, {skipped} slow one(s) skipped"
        if differs:
            print(f"readme-outputs: {len(differs)} of {what} differ", file=sys.stderr)
            return 1
        print(f"readme-outputs: {readme} matches ({what})", file=sys.stderr)
        return 0
    open(readme, "w", encoding="utf-8").write("\n".join(out))
    print(
        f"readme-outputs: {readme} rewritten ({ran} block(s) run, {skipped} skipped); "
        f"{len(differs)} changed beyond run-to-run figures",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
