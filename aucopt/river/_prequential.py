"""Prequential (test-then-train) evaluation of River classifiers with exact AUC over time."""

from __future__ import annotations

import math
from numbers import Integral

from ..metrics import StreamingROCAUC
from ..utils._param_validation import Interval, validate_parameter_constraints
from ._labels import is_positive
from ._metrics import ExactRollingROCAUC

__all__ = ["prequential"]


def prequential(stream, learners: dict, *, window=1000, every=100, progress=False,
                total=None) -> list[dict]:
    """Run test-then-train on a stream and record the exact AUC of every learner over time.

    For each sample ``(x, y)`` every learner first scores ``x``
    (``predict_proba_one(x)[True]``) and then learns ``(x, y)`` (``learn_one``); the
    scores go into an exact cumulative AUC (:class:`aucopt.metrics.StreamingROCAUC`)
    and an exact AUC over the last ``window`` samples (:class:`ExactRollingROCAUC`).
    This is the prequential protocol of online learning (Gama, Sebastiao & Rodrigues,
    "On evaluating stream learning algorithms", Machine Learning 90, 2013).

    Parameters
    ----------
    stream : iterable of (dict, label)
        Samples in order; the label ``True`` (or 1) is the positive class, ``False`` (0
        or -1) the other; any other label is refused.
    learners : dict
        Name -> River classifier (anything with ``predict_proba_one`` and ``learn_one``).
    window : int, default=1000
        Number of most recent samples of the windowed AUC.
    every : int, default=100
        Record the metrics every ``every`` samples (and after the last one).
    progress : bool, default=False
        Show a tqdm progress bar.
    total : int, optional
        Length of the stream, for the progress bar.

    Returns
    -------
    list of dict
        One record per learner and recording point: ``n`` (samples seen),
        ``learner``, ``cumulative_auc`` and ``window_auc`` (NaN while a class is
        missing), and ``constant`` (whether every score of the learner so far was the same:
        its AUC of 0.5 then says nothing about the learner).
    """
    validate_parameter_constraints({"window": [Interval(Integral, 1, None)],
                                    "every": [Interval(Integral, 1, None)]},
                                   {"window": window, "every": every}, "prequential")
    if not learners:
        raise ValueError("learners is empty: give at least one name -> classifier.")
    cumulative = {name: StreamingROCAUC(pos_label=True) for name in learners}
    windowed = {name: ExactRollingROCAUC(window_size=window) for name in learners}
    first = dict.fromkeys(learners)  # each learner's first score
    varied = dict.fromkeys(learners, False)  # whether a later score differed from it
    records = []
    n = 0

    def record():
        for name in learners:
            records.append({"n": n, "learner": name,
                            "cumulative_auc": cumulative[name].get(),
                            "window_auc": windowed[name].get(), "constant": not varied[name]})

    if progress:
        from tqdm.auto import tqdm

        stream = tqdm(stream, total=total, unit="row", desc="prequential")
    for x, y in stream:
        y = is_positive(y)  # (every learner gets True or False: -1 is not truthy here)
        for name, model in learners.items():
            score = model.predict_proba_one(x).get(True, 0.0)
            if not math.isfinite(score):
                raise ValueError(f"learner {name!r} returned a non-finite score {score} at row "
                                 f"{n}; scale the features or lower its step size.")
            if not varied[name]:
                if first[name] is None:
                    first[name] = score
                varied[name] = score != first[name]
            cumulative[name].update(y, score)
            windowed[name].update(y, score)
            model.learn_one(x, y)
        n += 1
        if n % every == 0:
            record()
    if n % every:
        record()
    return records
