"""Partial AUC at low false-positive rates: the partial-AUC learners against full-AUC ones.

Writes docs/partial_auc.md: on imbalanced synthetic data (1% and 0.1% positives, dense and
sparse) and on the datasets of the mirror (``AUCOPT_DATA_MIRROR``; skipped without it), the
test pAUC at FPR <= 0.05 and <= 0.1 (McClish's standardisation, as
``sklearn.metrics.roc_auc_score(max_fpr=)``), the full test AUC and the fit time of every
partial-AUC id (trained with ``max_fpr=0.1``) against full-AUC ids and scikit-learn's
``LogisticRegression``. Every model has its default hyperparameters (steps ``"auto"``).
The synthetic cases (``_partial_auc_mixture.py``) also get their frontier: the best
pAUC@0.1 that any scorer on the two directions they are built from reaches while its full
AUC stays within 0.01 of the best full-AUC id's. A nonlinear case (positives on a ring,
``_partial_auc_cases.py``) adds the same learners on random Fourier features.

Usage: python benchmarks/partial_auc.py [--seeds 3] [--quick | --smoke] [--out docs/partial_auc.md]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

import aucopt
from aucopt.datasets import fetch, make_preprocessor
from aucopt.metrics import partial_roc_auc_score, roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _partial_auc_cases import RFF, kernel_models, nonlinear_verdict, ring  # noqa: E402
from _partial_auc_mixture import excess_loss, frontier, mixture, room  # noqa: E402
from _stamp import stamp  # noqa: E402

PAUC_IDS = ("pauc-1pmb", "pauc-2pmb", "pauc-sopa", "pauc-sopa-s", "pauc-sota-s", "svm-pauc")
ONE_PASS_PAUC = ("pauc-1pmb", "pauc-sopa", "pauc-sopa-s", "pauc-sota-s")
FULL_IDS = ("spam-l2", "ftrl-auc", "solam", "kar", "b-ls-svm")
TARGET = 0.1  # the max_fpr the partial-AUC ids are trained for
MIRRORED = ("german.numer", "diabetes", "splice", "sylva", "shuttle", "a9a")


def synthetic_cases(scale):
    for rate, n in ((0.01, 50_000), (0.001, 250_000)):
        for sparse in (False, True):
            m = int(n * scale)
            name = f"mixture {rate:.1%} {'sparse' if sparse else 'dense'}"
            yield name, True, (lambda m=m, rate=rate, sparse=sparse, s=0:
                               mixture(m, rate, sparse=sparse, seed=s)), True


def mirror_cases():
    if not os.environ.get("AUCOPT_DATA_MIRROR"):
        return
    for name in MIRRORED:
        yield name, False, (lambda name=name: fetch(name)), False


def _target(algorithm):
    """``{"max_fpr": TARGET}`` for the ids that take it (the KL-DRO ids set their range
    through temperatures: their defaults)."""
    takes = algorithm in PAUC_IDS and "max_fpr" in aucopt.make(algorithm).get_params()
    return {"max_fpr": TARGET} if takes else {}


def models(X):
    out = {a: aucopt.make(a, random_state=0, **_target(a)) for a in (*PAUC_IDS, *FULL_IDS)}
    if sp.issparse(X) and X.shape[1] > 1000:
        out.pop("b-ls-svm")  # its d x d statistics are dense
    out["logistic (sklearn)"] = LogisticRegression(max_iter=2000)
    return out


def score(est, X):
    if hasattr(est, "decision_function"):
        return est.decision_function(X)
    return est.predict_proba(X)[:, 1]


def run_case(load, seeds, extra=dict, front=False):
    """Mean (pAUC@0.05, pAUC@0.1, AUC, fit seconds) per model over ``seeds`` splits; the
    models are those of :func:`models` and the dict that ``extra()`` returns. ``front``:
    also the mean over the splits of the mixture's frontier on the test part (else None)."""
    X, y = load()
    cells, fronts = {}, []
    for seed in range(seeds):
        train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y,
                                       random_state=seed)
        if front:
            fronts.append(frontier(X[test], y[test], max_fpr=TARGET))
        scaler = make_preprocessor("minmax").fit(X[train])
        Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
        for name, est in {**models(X), **extra()}.items():
            small = np.concatenate([np.flatnonzero(y[train] == c)[:40] for c in (-1, 1)])
            clone(est).fit(Xtr[small], y[train][small])  # compile the kernels before timing
            start = time.perf_counter()
            est.fit(Xtr, y[train])
            seconds = time.perf_counter() - start
            s = score(est, Xte)
            cells.setdefault(name, []).append((
                partial_roc_auc_score(y[test], s, max_fpr=0.05),
                partial_roc_auc_score(y[test], s, max_fpr=0.1),
                roc_auc_score(y[test], s), seconds))
            print(f"  {name}: {np.round(cells[name][-1], 4).tolist()}", flush=True)
    return (X, y, {k: np.mean(v, axis=0) for k, v in cells.items()},
            np.mean(fronts, axis=0) if front else None)


def verdict(cells, front=None):
    """The best one-pass pAUC id; whether its pAUC@0.1 beats every full-AUC id's, and
    scikit-learn's logistic regression's; its full-AUC gap to the best full-AUC id; and
    (NaN without ``front``) the frontier's best pAUC@0.1 within 0.01 of the best full-AUC
    id's AUC, its margin over the best full-AUC id's pAUC@0.1 (:func:`room`), and the full
    AUC the best id gives up beyond the frontier at its pAUC@0.1 (:func:`excess_loss`)."""
    best = max(ONE_PASS_PAUC, key=lambda a: cells[a][1])
    full = [k for k in FULL_IDS if k in cells]
    beats = all(cells[best][1] > cells[k][1] for k in full)
    beats_logistic = cells[best][1] > cells["logistic (sklearn)"][1]
    best_auc = max(cells[k][2] for k in full)
    reach = (*room(front, best_auc, max(cells[k][1] for k in full)),
             excess_loss(front, cells[best][1], cells[best][2])) if front is not None else (
        (float("nan"),) * 3)
    return best, beats, beats_logistic, best_auc - cells[best][2], *reach


def _tag(model):
    """The model's name in a table: ids in code font, pAUC ids marked."""
    prefix, sep, bare = model.rpartition("RFF + ")
    if bare in PAUC_IDS or bare in FULL_IDS:
        return f"{prefix}{sep}`{bare}`{' (pAUC)' if bare in PAUC_IDS else ''}"
    return model


def _cell(value, spec):
    """A number of the verdict's table (a dash for NaN: no frontier on real data)."""
    return "-" if np.isnan(value) else format(value, spec)


def section(name, X, y, cells):
    """A case's heading, its shape and its table, best model first."""
    kind = "CSR" if sp.issparse(X) else "dense"
    head = (f"### {name}\n\n{X.shape[0]:,} rows x {X.shape[1]:,} features ({kind}), "
            f"{np.mean(y > 0):.2%} positives.\n")
    rows = ["| model | pAUC@0.05 | pAUC@0.1 | AUC | fit s |", "| --- | --- | --- | --- | --- |"]
    best = {i: max(c[i] for c in cells.values()) for i in range(3)}
    for model, c in sorted(cells.items(), key=lambda kv: -kv[1][1]):
        marks = [f"**{c[i]:.4f}**" if c[i] == best[i] else f"{c[i]:.4f}" for i in range(3)]
        rows.append(f"| {_tag(model)} | {' | '.join(marks)} | {c[3]:.3f} |")
    return head + "\n" + "\n".join(rows) + "\n"


def nonlinear_case(scale, seeds):
    """The ring case: the linear models and their RFF pipelines; its section's text."""
    n = max(600, int(5000 * scale))
    print("ring (nonlinear)", flush=True)
    X, y, cells, _ = run_case(lambda: ring(n, 0.03, seed=0), seeds,
                              extra=lambda: kernel_models(TARGET))
    return [
        "## A nonlinear case: random Fourier features", "",
        "Rare positives on a circle of radius 3 around standard normal negatives (`ring` in "
        "`benchmarks/_partial_auc_cases.py`, 4 features): every linear scorer lifts one arc "
        "of the circle above the negatives and buries the opposite one, so the linear models "
        "rank near chance. The same learners on random Fourier features, "
        f"`make_pipeline(RandomFourierFeatures(n_components={RFF['n_components']}, "
        'bandwidth="auto"), learner)` (the bandwidth from the scaled training '
        "part), learn a Gaussian-kernel scorer. On this ring the best direction is the same "
        "at every FPR (the distance to the centre), so the full-AUC RFF pipelines are not "
        "expected to lose to the partial-AUC ones.", "",
        "The best RFF partial-AUC pipeline, {}, reaches pAUC@0.1 {:.4f}; the best linear "
        "model, {}, {:.4f}; the best full-AUC RFF pipeline, {}, {:.4f}.".format(
            *(v for name, value in nonlinear_verdict(cells) for v in (_tag(name), value))), "",
        section("ring 3% dense", X, y, cells)]


def _real_reading(real) -> str:
    """The reading of the verdicts of the real (not synthetic) imbalanced cases."""
    if not real:
        return "No real dataset ran (without a mirror: synthetic cases only)."
    gaps = [abs(v[4]) for v in real]
    wins = sum(v[2] for v in real)
    return (f"On the real data ({', '.join(v[0] for v in real)}) the best one-pass "
            f"partial-AUC id's full AUC is within {max(gaps):.4f} of the best full-AUC id's, "
            f"and it beats every full-AUC id at pAUC@0.1 on {wins} of {len(real)}.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="synthetic data 0.4 times as large")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny synthetic data, one split, no mirror (for the tests)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "partial_auc.md"))
    args = parser.parse_args()
    sections, verdicts, real = [], [], set()
    scale = 0.02 if args.smoke else 0.4 if args.quick else 1.0
    if args.smoke:
        args.seeds = 1
    cases = [*synthetic_cases(scale), *(() if args.smoke else mirror_cases())]
    for name, imbalanced, load, synthetic in cases:
        print(name, flush=True)
        X, y, cells, front = run_case(load, args.seeds, front=synthetic)
        sections.append(section(name, X, y, cells))
        if imbalanced or np.mean(y > 0) <= 0.1:
            verdicts.append((name, *verdict(cells, front)))
            if not synthetic:
                real.add(name)
    nonlinear = nonlinear_case(scale, args.seeds)
    wins = sum(v[2] for v in verdicts)
    ok = sum(v[2] and v[4] <= 0.01 for v in verdicts)
    summary = ["| imbalanced case | best one-pass pAUC id | pAUC@0.1 above every full-AUC id | "
               "above logistic regression | its AUC below the best full-AUC id | frontier: "
               "best pAUC@0.1 within 0.01 of that AUC | its margin over every full-AUC id | "
               "the id's AUC below the frontier at its pAUC@0.1 |",
               "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    summary += [f"| {n} | `{b}` | {'yes' if w else 'no'} | {'yes' if lw else 'no'} | {g:+.4f} | "
                f"{_cell(top, '.4f')} | {_cell(margin, '+.4f')} | {_cell(over, '+.4f')} |"
                for n, b, w, lw, g, top, margin, over in verdicts]
    margins = [v[6] for v in verdicts if not np.isnan(v[6])]
    window = sum(m > 0 for m in margins)
    text = [
        "# Partial AUC at low false-positive rates", "",
        f"{stamp()}. Generated by `python benchmarks/partial_auc.py --seeds {args.seeds}"
        f"{' --quick' if args.quick else ''}{' --smoke' if args.smoke else ''}` (set "
        "`AUCOPT_DATA_MIRROR` to a mirror directory "
        "to add the real datasets; they are skipped without it).", "",
        "What it measures: test pAUC over FPR in [0, 0.05] and [0, 0.1] (McClish's "
        "standardisation, as `sklearn.metrics.roc_auc_score(max_fpr=)`: 0.5 is a random "
        "ranking, 1 a perfect one), full test AUC and fit seconds (after a warm-up fit that "
        "compiles the kernels), averaged over "
        f"{args.seeds} stratified 70/30 splits. Features scaled with `minmax` fitted on the "
        "training part (CSR: divided by the largest absolute value). Every model runs with "
        f"its defaults; the partial-AUC ids with `max_fpr={TARGET}` (`pauc-sopa-s` and "
        "`pauc-sota-s` have no `max_fpr`: their KL temperatures at the defaults). "
        "Full-AUC models: "
        f"{', '.join(f'`{a}`' for a in FULL_IDS)} and scikit-learn's `LogisticRegression` "
        "(`b-ls-svm` skipped on the 2,000-feature CSR data).", "",
        "The synthetic data (`mixture` in `benchmarks/_partial_auc_mixture.py`) are built so "
        "that the top of the ranking and the bulk want different directions (rare positives "
        "of two kinds, and negative decoys that outrank the mild kind): the situation "
        "partial-AUC learning is for; the sparse ones are the dense ones spread over "
        "2,000 sparse features (the same projections on the two directions). On data where "
        "one linear direction is best everywhere (Gaussian classes with a shared covariance) "
        "a full-AUC learner is already optimal at every FPR.", "",
        "**The frontier** of a synthetic case is what a linear scorer can reach at all: the "
        "scorers `cos(a) p1 + sin(a) p2` on the rows' coordinates `p1`, `p2` along the two "
        "directions the data are built from, for angles `a` from -10 to 100 degrees in steps "
        "of 0.5, scored on the same test parts. Its column below is the best pAUC@0.1 among "
        "those of them whose full AUC is within 0.01 of the best full-AUC id's, and the "
        "margin of that over the best full-AUC id's pAUC@0.1: where the margin is small or "
        "negative, no linear learner can beat every full-AUC id at pAUC@0.1 by more than "
        "that while keeping its full AUC within 0.01 (a dash: none of them is that close to "
        "the best full-AUC id, or the case is not synthetic). The last column is the full AUC "
        "that the best one-pass partial-AUC id gives up beyond the trade-off itself: the "
        "frontier's best AUC among its scorers at least as good at pAUC@0.1, minus the id's "
        "AUC (near 0: the id sits on the frontier).", "",
        "## Verdict on the imbalanced cases", "",
        f"The best one-pass partial-AUC id beats every full-AUC id at pAUC@0.1 on {wins} "
        f"of {len(verdicts)} imbalanced cases, {ok} of them with a full AUC within 0.01 of "
        "the best full-AUC id's; scikit-learn's logistic regression (not a full-AUC id "
        "here) is at or above it at pAUC@0.1 on "
        f"{sum(not v[3] for v in verdicts)} of the {len(verdicts)}. "
        f"{_real_reading([v for v in verdicts if v[0] in real])} "
        f"On {window} of the {len(margins)} synthetic cases the frontier leaves room for "
        "both conditions at once"
        + (f" (margins from {min(margins):+.4f} to {max(margins):+.4f} of pAUC@0.1)"
           if margins else "") + ".",
        "",
        *summary, "",
        "## Results", "",
        *sections,
        *nonlinear,
    ]
    Path(args.out).write_text("\n".join(text))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
