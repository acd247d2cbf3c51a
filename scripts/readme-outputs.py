#!/usr/bin/env python3
"""Re-runs the README's console examples and writes their real output back.

Usage: scripts/readme-outputs.py [--binary PATH] [--check] [README]

Every fenced block that opens with ```console is an example to re-run: each line that starts
with "$ " is run with bash (pipefail, stdin from /dev/null, stdout and stderr together),
in one scratch directory for the whole README (so a block can use the files an earlier one
wrote), with the binary's directory first on PATH and the scratch directory as the working
directory; the lines after it, up to the next "$ " line or the end of the block, become its
output. Other blocks (```text, ```sh, ...) are left as written: captures that cannot be
re-run here (a progress bar on a terminal, an MPI run, a count that takes hours), each
saying in the README where and when it was captured.

Times and speeds differ from run to run, so the README changes each time this runs; read
the diff. --check prints the blocks whose output would change in anything but digits and
exits 1 if there are any (a command whose message or layout changed).

Default binary: target/release/nqueens (build it first: cargo build --release).
"""

import os
import re
import subprocess
import sys
import tempfile

FENCE = "```"


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


def main(argv):
    binary = "target/release/nqueens"
    check = False
    readme = "README.md"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--binary":
            binary = args.pop(0)
        elif a == "--check":
            check = True
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            readme = a
    binary = os.path.abspath(binary)
    if not os.access(binary, os.X_OK):
        print(f"readme-outputs: no binary at {binary}: cargo build --release first", file=sys.stderr)
        return 2
    bindir = os.path.join(tempfile.mkdtemp(prefix="readme-bin-"), "bin")
    os.makedirs(bindir)
    os.symlink(binary, os.path.join(bindir, "nqueens"))
    scripts = os.path.abspath(os.path.dirname(__file__))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], COLUMNS="100")
    env.pop("NQUEENS_KERNEL", None)
    env["README_SCRIPTS"] = scripts
    lines = open(readme, encoding="utf-8").read().split("\n")
    out, changed = [], []
    with tempfile.TemporaryDirectory(prefix="readme-run-") as work:
        i = 0
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
                continue
            old, new = [], []
            while i < len(lines) and lines[i].strip() != FENCE:
                l = lines[i]
                old.append(l)
                if l.startswith("$ "):
                    new.append(l)
                    new.extend(run(l[2:], work, env))
                i += 1
            out.extend(new)
            digits = lambda ls: [re.sub(r"[0-9.,]+", "#", x) for x in ls]
            if digits(old) != digits(new):
                changed.append((old, new))
    if check:
        for old, new in changed:
            print("--- README\n" + "\n".join(old) + "\n+++ now\n" + "\n".join(new) + "\n")
        return 1 if changed else 0
    open(readme, "w", encoding="utf-8").write("\n".join(out))
    print(f"readme-outputs: {readme} rewritten; {len(changed)} block(s) changed beyond digits", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
