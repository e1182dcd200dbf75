"""Table of the invocations in invocations.log (per config: arguments, wall time, exit code).

usage: python timing_table.py --log invocations.log [--since 2026-11-24T06:00:00Z] [--until ...]
Lines "SKIPPED (deadline) ..." are listed at the end.
"""
import argparse
import collections
import re

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--log", required=True)
ap.add_argument("--since", default="")
ap.add_argument("--until", default="9999")
a = ap.parse_args()
text = open(a.log).read()
per = collections.OrderedDict()
for block in text.split("=== START ")[1:]:
    head = block.splitlines()[0]
    ts, cid, args, nj, git = re.match(r"(\S+) (\S+) (.*) --n-jobs (\d+) HEAD=(\w+)", head).groups()
    if not (a.since <= ts < a.until):
        continue
    w = re.search(r"rc=(\d+) wall=([\d.]+)s END (\S+)", block)
    args = args.replace("diabetes,german.numer,splice", "$S")
    per.setdefault(cid, []).append((ts[11:19], args, nj, int(w.group(1)) if w else None,
                                    float(w.group(2)) if w else None, w.group(3)[11:19] if w else "running"))
tot = 0.0
for cid, inv in per.items():
    cells, sub = [], 0.0
    for ts, args, nj, rc, wall, end in inv:
        note = "" if rc == 0 else (" (no end line)" if rc is None else f" (exit code {rc})")
        cells.append(f"`{args}` ({ts}–{end}, {wall or 0:.0f} s, `--n-jobs {nj}`){note}")
        sub += wall or 0
    tot += sub
    print(f"| {cid} | " + "<br>".join(cells) + f" | {int(sub // 60)} min {int(round(sub % 60))} s |")
print(f"| **total** | | **{int(tot // 60)} min {int(round(tot % 60))} s** |")
for ln in text.splitlines():
    if ln.startswith("SKIPPED"):
        print("SKIPPED:", ln)
