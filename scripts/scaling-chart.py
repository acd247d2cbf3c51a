#!/usr/bin/env python3
"""Draw the scaling chart of a `nqueens bench --json` report as an SVG file.

x: threads; y: speed-up of the whole workload over 1 thread (median wall times, the
report's `scaling` rows). A dashed line is ideal scaling (speed-up = threads) and a dotted
vertical line marks the machine's logical cores, beyond which threads share cores. Each
point is labelled with its speed-up and parallel efficiency.

Usage:  python3 scripts/scaling-chart.py REPORT.json OUT.svg
        nqueens bench --threads 1,2,4,8 --json > r.json && python3 scripts/scaling-chart.py r.json r.svg
Exit:   0 written, 2 unreadable report or bad arguments.
Python 3.11 standard library only: the SVG is written by hand.
"""

import json
import math
import sys
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 640, 440
LEFT, RIGHT, TOP, BOTTOM = 70, 30, 60, 60  # margins around the plot area, px


def nice_step(span, target_ticks=8):
    """A tick step of 1, 2 or 5 times a power of ten giving at most about target_ticks ticks."""
    raw = max(span / target_ticks, 1e-9)
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return max(m * power, 1) if span >= 1 else m * power
    return 10 * power


def load_note(machine):
    """", load 3.18" when the report knows the load average at the start."""
    load = machine.get("load_average")
    return "" if load is None else f", load {load:.2f}"


def chart(report):
    rows = report["scaling"]
    machine = report["machine"]
    threads = [r["threads"] for r in rows]
    speedups = [r["speedup"] for r in rows]
    x_max = max(max(threads), 2)
    y_max = max(x_max, math.ceil(max(speedups)))
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x):
        return LEFT + x / x_max * pw

    def py(y):
        return TOP + ph - y / y_max * ph

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="15">'
        f'nqueens bench scaling: workload {escape(report["workload"]["id"])}</text>',
        f'<text x="{WIDTH / 2}" y="40" text-anchor="middle" fill="#555">'
        f'{escape(machine["cpu_model"])}, {machine["logical_cores"]} logical / '
        f'{machine["physical_cores"]} physical cores, {escape(machine["program"])}, '
        f'{report["runs"]} runs, medians{load_note(machine)}</text>',
    ]
    # Grid and ticks.
    step_x, step_y = nice_step(x_max), nice_step(y_max)
    x = 0
    while x <= x_max + 1e-9:
        out.append(f'<line x1="{px(x):.1f}" y1="{TOP}" x2="{px(x):.1f}" y2="{TOP + ph}" stroke="#eee"/>')
        out.append(f'<text x="{px(x):.1f}" y="{TOP + ph + 18}" text-anchor="middle">{x:g}</text>')
        x += step_x
    y = 0
    while y <= y_max + 1e-9:
        out.append(f'<line x1="{LEFT}" y1="{py(y):.1f}" x2="{LEFT + pw}" y2="{py(y):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 8}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
        y += step_y
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{HEIGHT - 18}" text-anchor="middle">threads</text>')
    out.append(f'<text transform="translate(20 {TOP + ph / 2}) rotate(-90)" text-anchor="middle">'
               'speed-up over 1 thread</text>')
    # Logical cores, ideal line, measurement.
    cores = machine["logical_cores"]
    if cores <= x_max:
        out.append(f'<line x1="{px(cores):.1f}" y1="{TOP}" x2="{px(cores):.1f}" y2="{TOP + ph}" '
                   'stroke="#999" stroke-dasharray="2 3"/>')
        out.append(f'<text x="{px(cores) + 4:.1f}" y="{TOP + 14}" fill="#777">{cores} logical cores</text>')
    ideal_end = min(x_max, y_max)
    out.append(f'<line x1="{px(0):.1f}" y1="{py(0):.1f}" x2="{px(ideal_end):.1f}" y2="{py(ideal_end):.1f}" '
               'stroke="#888" stroke-dasharray="6 4"/>')
    out.append(f'<text x="{px(ideal_end) - 6:.1f}" y="{py(ideal_end) + 16:.1f}" text-anchor="end" '
               'fill="#777">ideal</text>')
    points = " ".join(f"{px(t):.1f},{py(s):.1f}" for t, s in zip(threads, speedups))
    out.append(f'<polyline points="{points}" fill="none" stroke="#1f5fbf" stroke-width="2"/>')
    for r in rows:
        cx, cy = px(r["threads"]), py(r["speedup"])
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="#1f5fbf"/>')
        # Labels of points in the right quarter go to their left, inside the picture.
        right = cx > LEFT + 0.75 * pw
        out.append(f'<text x="{cx - 6 if right else cx + 6:.1f}" y="{cy - 8:.1f}" fill="#1f5fbf" '
                   f'text-anchor="{"end" if right else "start"}">'
                   f'{r["speedup"]:.2f}x ({r["efficiency"] * 100:.0f}%)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        print("usage: scaling-chart.py REPORT.json OUT.svg", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            report = json.load(f)
        svg = chart(report)
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        print(f"scaling-chart: cannot read a bench report from {argv[1]}: {e!r}", file=sys.stderr)
        return 2
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(svg)
    print(f"wrote {argv[2]}: {len(report['scaling'])} thread counts, up to {report['scaling'][-1]['threads']} threads")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
