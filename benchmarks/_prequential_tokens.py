"""Bag-of-words dict streams for ``benchmarks/prequential.py``: River's test-then-train on rows
of token indicators, the AUC learners against River's ``LogisticRegression``.

Each row holds ``nnz`` tokens drawn from a Zipf law (exponent ``a``) over 2^20 token ids, as
the words of short documents are: a few tokens in almost every row, most of them rare. The
row is the dict ``{"t<id>": 1.0}`` of its distinct tokens; its label is whether the sum of
hidden per-token weights (N(0, 1), one per id) plus logistic noise is in the top ``pos``
share. No scaler (indicator values), growing vocabularies (``n_features=None``).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["CASES", "LEARNERS", "token_records", "token_section", "token_stream"]

VOCABULARY = 2**20
#: case -> (tokens per row, Zipf exponent, positive share, seed)
CASES = {
    "50 tokens, Zipf 1.1, 20% positives": (50, 1.1, 0.2, 3),
    "20 tokens, Zipf 1.3, 20% positives": (20, 1.3, 0.2, 4),
    "30 tokens, Zipf 1.5, 10% positives": (30, 1.5, 0.1, 6),
    "50 tokens, Zipf 1.1, 2% positives": (50, 1.1, 0.02, 5),
}
#: label -> (aucopt id or None for River's LogisticRegression, AUCClassifier keyword arguments)
LEARNERS = {
    "River LogisticRegression": (None, {}),
    "spam-l2 (defaults)": ("spam-l2", {}),
    "spam-l2 stats=online, output=last": ("spam-l2", {"stats": "online", "output": "last"}),
    "ftrl-auc": ("ftrl-auc", {}),
    "uni-log (defaults)": ("uni-log", {}),
    'uni-log schedule="constant"': ("uni-log", {"schedule": "constant"}),
}


def token_stream(n: int, nnz: int, exponent: float, pos: float, seed: int):
    """Return ``n`` pairs ``(dict of token indicators, bool label)`` (module docstring)."""
    rng = np.random.default_rng(seed)
    tokens = rng.zipf(exponent, size=(n, nnz)) % VOCABULARY
    weight = rng.normal(size=VOCABULARY)
    score = np.array([weight[np.unique(t)].sum() for t in tokens]) / np.sqrt(nnz)
    score += 0.3 * rng.logistic(size=n)
    labels = score > np.quantile(score, 1.0 - pos)
    return [({f"t{t}": 1.0 for t in row}, bool(label)) for row, label in zip(tokens, labels)]


def _model(algorithm, kwargs):
    if algorithm is None:
        from river import linear_model

        return linear_model.LogisticRegression()
    from aucopt.river import AUCClassifier

    return AUCClassifier(algorithm, **kwargs)


def token_records(n: int) -> tuple[dict, dict]:
    """Return ``case -> learner -> prequential AUC`` (every row scored before it is learnt)
    and ``case -> learner -> seconds``."""
    from aucopt.metrics import roc_auc_score

    aucs, seconds = {}, {}
    for case, spec in CASES.items():
        stream = token_stream(n, *spec)
        labels = np.array([label for _, label in stream])
        for label, (algorithm, kwargs) in LEARNERS.items():
            model, scores = _model(algorithm, kwargs), np.empty(n)
            start = time.perf_counter()
            for i, (x, y) in enumerate(stream):
                scores[i] = model.predict_proba_one(x).get(True, 0.5)
                model.learn_one(x, y)
            seconds.setdefault(case, {})[label] = time.perf_counter() - start
            aucs.setdefault(case, {})[label] = roc_auc_score(labels, scores)
            print(f"  {case}: {label} {aucs[case][label]:.4f}", flush=True)
    return aucs, seconds


def token_section(aucs: dict, seconds: dict, n: int) -> list[str]:
    """Markdown lines: the protocol, one row per learner and one column per case."""
    cases = list(aucs)
    river = "River LogisticRegression"
    best_ours = {c: max((v, k) for k, v in aucs[c].items() if k != river) for c in cases}
    lines = [
        "## Bag-of-words streams",
        "",
        f"{n:,} rows of token indicators per stream (`benchmarks/_prequential_tokens.py`): each "
        "row the distinct tokens among its draws from a Zipf law over 2^20 token ids (a few "
        "tokens in almost every row, most of them rare, as words are), as the dict "
        '`{"t<id>": 1.0}`; the label is whether a hidden linear score of the tokens plus '
        "noise is in the top share. No scaler, growing vocabularies; `predict_proba_one` "
        "before `learn_one` on every row; prequential AUC over all rows.",
        "",
        "| learner | " + " | ".join(cases) + " | seconds (all streams) |",
        "| --- | " + " | ".join("---" for _ in cases) + " | --- |",
    ]
    for label in LEARNERS:
        cells = [f"**{aucs[c][label]:.4f}**" if best_ours[c][1] == label else
                 f"{aucs[c][label]:.4f}" for c in cases]
        lines.append(f"| {label} | " + " | ".join(cells) + " | "
                     f"{sum(seconds[c][label] for c in cases):.1f} |")
    def above(label):  # streams where the learner ranked above River's
        return sum(aucs[c][label] > aucs[c][river] for c in cases)

    lines += [
        "",
        "Bold: the best aucopt learner of each stream. Reading: with a step that decays as "
        "1/sqrt(t), a token first seen late in the stream is learnt with a small step, and "
        "most tokens are rare; River's `LogisticRegression` keeps a constant step. Ranked "
        "above River's `LogisticRegression`: "
        + "; ".join(f"{label} on {above(label)} of {len(cases)}" for label in LEARNERS
                    if label != river) + ".",
        "",
    ]
    return lines
