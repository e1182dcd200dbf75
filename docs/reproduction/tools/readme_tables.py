"""Tables and counts of README.md from the merged cells.csv.

usage: python readme_tables.py MODE --cells cells.csv --reduced CELLS_REDUCED.csv \
           [--previous CELLS_PREVIOUS.csv] [--reasons reasons.csv]

MODE      proposed  rows of the proposed-methods table and the within-0.01 / within-± counts
          off       rows of the off-cell list (|ours - published| > published ±) and counts
          changes   cells now paper protocol whose reduced value differs, sorted by |move|
cells.csv         the merged cells (after)
CELLS_REDUCED     the all-reduced report's cells.csv (git show 7005ad3:docs/reproduction/cells.csv);
                  "before" columns show its value
CELLS_PREVIOUS    optional, an intermediate report's cells.csv (e.g. git show
                  dcc6a41:docs/reproduction/cells.csv): counts are also given for it
reasons.csv       config,dataset,algorithm,reason (reason codes of README.md)
"""
import argparse
import collections
import csv

PROPOSED = {"alquabeh2024-t2": ["aogd"], "dan-t1": ["vrspam-l2", "vrspam-net"], "gao2013-t2": ["opauc"],
            "gao2013-t3": ["opauc"], "liu2018-t2": ["fsauc"], "natole2020-t3.2": ["reg-solam"],
            "natole2020-t4.2": ["spam-l2", "spam-net"], "natole2020-t5.2": ["spdam"],
            "natole2020-t6.3": ["reg-solam", "spam", "spdam"]}
DS = {"german.numer": "german"}
ORDER = ["diabetes", "german.numer", "splice", "a9a"]


def f(x, d=4):
    t = f"{float(x):.{d}f}"
    return t[1:] if t.startswith("0.") else t


def s(x):
    return f"{float(x):+.4f}"


def ours(r):
    return f"{f(r['auc_mean'])}±{f(r['auc_error'])} ({r['runs']})"


def load(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def within(r):
    d, e = float(r["difference"]), float(r["published_error"])
    return abs(d) <= 0.01, abs(d) <= e


def proposed_counts(rows):
    by = {(r["config"], r["dataset"], r["algorithm"]): r for r in rows}
    out = collections.OrderedDict()
    for cid, algs in PROPOSED.items():
        c = [0, 0, 0]
        for a in algs:
            for ds in ORDER:
                r = by.get((cid, ds, a))
                if r is None or r["runs"] in ("", "0"):
                    continue
                y1, y2 = within(r)
                c[0] += 1; c[1] += y1; c[2] += y2
        out[cid] = c
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["proposed", "off", "changes"])
    ap.add_argument("--cells", required=True)
    ap.add_argument("--reduced", required=True)
    ap.add_argument("--previous")
    ap.add_argument("--reasons")
    a = ap.parse_args()
    new = load(a.cells)
    old = {(r["config"], r["dataset"], r["algorithm"]): r for r in load(a.reduced)}
    prev = load(a.previous) if a.previous else None
    reason = {}
    if a.reasons:
        reason = {(r["config"], r["dataset"], r["algorithm"]): r["reason"] for r in load(a.reasons)}
    if a.mode == "proposed":
        by = {(r["config"], r["dataset"], r["algorithm"]): r for r in new}
        for cid, algs in PROPOSED.items():
            for alg in algs:
                for ds in ORDER:
                    r = by.get((cid, ds, alg))
                    if r is None or r["runs"] in ("", "0"):
                        continue
                    o = old[cid, ds, alg]
                    y1, y2 = within(r)
                    same = r["protocol"] == "reduced" or cid == "liu2018-t2"
                    before = "same cells" if same else f"{f(o['auc_mean'])} ({s(o['difference'])})"
                    rc = reason.get((cid, ds, alg), "unexplained") if not (y1 and y2) else ""
                    print(f"| {cid} | {alg} | {DS.get(ds, ds)} | {r['protocol']} | {ours(r)} | {r['published']} "
                          f"| {s(r['difference'])} | {'yes' if y1 else '**no**'} | {'yes' if y2 else 'no'} | {before} | {rc} |")
        for name, rows in [("after", new), ("previous", prev), ("reduced", list(old.values()))]:
            if rows is None:
                continue
            c = proposed_counts(rows)
            tot = [sum(v[i] for v in c.values()) for i in range(3)]
            print(f"\n{name}: {tot[0]} cells, within 0.01 {tot[1]}, within ± {tot[2]}")
            for k, v in c.items():
                print(f"  {k}: within 0.01 {v[1]}/{v[0]}, within ± {v[2]}/{v[0]}")
    elif a.mode == "off":
        cnt = collections.Counter()
        n = 0
        for r in new:
            if r["exceeds_published_error"] != "True":
                continue
            k = (r["config"], r["dataset"], r["algorithm"])
            o = old[k]
            rc = reason.get(k, "unexplained")
            n += 1
            for c in rc.split(", "):
                cnt[c] += 1
            same = r["protocol"] == "reduced" or r["config"] == "liu2018-t2"
            was = "same cell" if same else (f"{f(o['auc_mean'])} ({s(o['difference'])}"
                                            f"{', off' if o['exceeds_published_error'] == 'True' else ', not off'})")
            print(f"| {r['config']} | {DS.get(r['dataset'], r['dataset'])} | {r['algorithm']} | {r['protocol']} "
                  f"| {ours(r)} | {r['published']} | {s(r['difference'])} | {was} | {rc} |")
        print("\nOFF after", n, dict(sorted(cnt.items())))
        if prev is not None:
            print("OFF previous", sum(r["exceeds_published_error"] == "True" for r in prev))
        print("OFF reduced", sum(r["exceeds_published_error"] == "True" for r in old.values()))
        # cells that entered / left the list relative to the previous report
        if prev is not None:
            pv = {(r["config"], r["dataset"], r["algorithm"]): r for r in prev}
            for r in new:
                k = (r["config"], r["dataset"], r["algorithm"])
                was, now = pv.get(k, {}).get("exceeds_published_error") == "True", r["exceeds_published_error"] == "True"
                if was != now:
                    print(("JOINED " if now else "LEFT   ") + " ".join(k),
                          f"{f(pv[k]['auc_mean'])} ({s(pv[k]['difference'])}) -> {f(r['auc_mean'])} ({s(r['difference'])}), ± {r['published_error']}")
    else:
        moves = []
        for r in new:
            o = old.get((r["config"], r["dataset"], r["algorithm"]))
            if r["protocol"] != "paper" or r["config"] == "liu2018-t2" or not o or o["runs"] in ("", "0"):
                continue
            moves.append((abs(float(r["auc_mean"]) - float(o["auc_mean"])), r, o))
        for m, r, o in sorted(moves, key=lambda t: -t[0]):
            print(f"| {r['config']} | {DS.get(r['dataset'], r['dataset'])} | {r['algorithm']} | {ours(o)} | "
                  f"{s(o['difference'])}{' !' if o['exceeds_published_error'] == 'True' else ''} | {ours(r)} | "
                  f"{s(r['difference'])}{' !' if r['exceeds_published_error'] == 'True' else ''} | {r['published']} | {m:.4f} |")


if __name__ == "__main__":
    main()
