"""Step sizes calibrated on the data: the ``"auto"`` value of every step parameter.

Stochastic-gradient steps depend on the scale of the data, which no constant
fits. ``"auto"`` therefore picks the step the way L. Bottou recommends for SGD
(*Stochastic gradient descent tricks*, in Neural Networks: Tricks of the Trade,
2012, section 5.2): run the algorithm briefly on a sample of the data for each
step of a geometric ladder, evaluate the algorithm's own regularised objective
at the result, and keep the step with the lowest value.

Each spec declares how in a :class:`StepCalibration` (its ``calibration``
field): the objective, and the centre of the ladder as ``unit / (m2 + offset) **
power`` where ``m2`` is the mean squared row norm of the sample (the mean, not the
largest norm, so that a few outlying rows do not set every step). The ladder is
``centre * LADDER_RATIO ** k`` for ``k`` in ``LADDER_POWERS``, climbed from its
smallest step until a regularised objective has risen twice past its minimum, and
extended by up to ``MAX_EXTEND`` steps beyond an end while the best step is at that end.

The objectives are in :mod:`._objectives` (weighted: a row by ``w_i``, a pair by
``w_i w_j``, notes.md#sample-weights).

This module is pure NumPy on top of the specs; the estimators call
:func:`calibrate_step` (fit, first usable ``partial_fit`` chunk).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._kernels._checks import OK
from ._cutting_plane import as_matrix
from ._data import (
    as_rows,
    first_non_finite_row,
    new_data_stats,
    non_finite_message,
    observe_data,
)
from ._fast import one_blas_thread
from ._objectives import (
    MAX_SCALE,
    best_scale_loss,
    pairwise_loss,
    regularised,
    univariate_loss,
)
from ._spec import RowData
from ._step_choice import backed_off, chosen_step, past_the_best, scale_free
from ._time_budget import deadline_of

__all__ = [
    "AUTO_RETRIES",
    "AUTO_STEP_ATTR",
    "RESTART_MESSAGE",
    "RUN_SHARE",
    "LADDER_POWERS",
    "LADDER_RATIO",
    "MAX_EXTEND",
    "MAX_PASSES",
    "MAX_SCALE",
    "MIN_ROWS",
    "MAX_UPDATES",
    "MIN_SAMPLE",
    "MINORITY_SHARE",
    "SAMPLE_ROWS",
    "StepCalibration",
    "TOLERANCE",
    "best_scale_loss",
    "brief_updates",
    "calibrate_step",
    "compact_columns",
    "pairwise_loss",
    "regularised",
    "sample_rows",
    "univariate_loss",
    "usable",
]

logger = logging.getLogger(__name__)

# the estimator attribute that keeps the step "auto" gave a stream (None: not calibrated yet),
# so that "auto" set again after a number returns to it; model files keep it too
AUTO_STEP_ATTR = "_auto_step_value"

SAMPLE_ROWS = 2000  # updates per brief run: passes x sample rows (at least MIN_SAMPLE rows)
MIN_SAMPLE = 500
# ... and at least this share of the fit's own updates (rows x passes), up to MAX_UPDATES: a
# large step of eta0 / sqrt(t + t0) starts with a transient of a fixed number of updates that a
# short brief run cannot outlast but a long fit can (one pass over 10^6 hashed sparse rows:
# brief runs of 2,000 updates chose eta0 = 0.092, of 8,000 and 32,000 0.37; test AUC 0.743
# against 0.767; the ladder of 7,812-update runs costs under 2% of that pass)
RUN_SHARE = 1 / 128  # six brief runs: about 5% of the fit's updates (1/32 chose the same there)
MAX_UPDATES = 50_000
MINORITY_SHARE = 0.1  # the rarer class fills at least this share of the sample, if it can
MAX_PASSES = 5  # a brief run makes the fit's number of passes, at most this many
MIN_ROWS = 20  # fewer rows (or one class, or only zero rows): calibration waits for more data
LADDER_RATIO = 4.0
LADDER_POWERS = (-2, -1, 0, 1, 2, 3)  # 6 brief runs, steps 1/16 .. 64 x centre
TOLERANCE = 0.05  # relative: a smaller step whose objective is this close to the lowest wins
MAX_EXTEND = 4  # more runs beyond an end of the ladder while the best step is at that end
# restarts of a fit whose calibrated step diverges, each one rung down the ladder (the
# estimators' fit and partial_fit, aucopt.distributed.fit)
AUTO_RETRIES = 5
# the warning of each restart: estimator, parameter, parameter, new step, restart, of
RESTART_MESSAGE = "%s diverged with the calibrated %s; restarting with %s=%g (%d/%d)."
_SEED = 0  # calibration runs draw from their own generator: the estimator's stream is untouched


@dataclass(frozen=True)
class StepCalibration:
    """How ``"auto"`` calibrates one algorithm's step parameter.

    Parameters
    ----------
    objective : callable
        ``objective(scores, w, params, y) -> float``: the algorithm's regularised
        objective given the model's scores on the sample, its weight vector ``w``
        (None for non-linear models) and the signed weights ``y = ±w`` (``±1``
        unweighted); lower is better.
    unit, offset, power : float
        The ladder's centre is ``unit / (m2 + offset) ** power``, ``m2`` the mean
        squared row norm of the sample (``power = 0.5`` for steps that scale with
        the norm, e.g. AdaGrad's).
    brief : dict
        Hyperparameters overridden for the brief runs (e.g. ``{"max_iter": 1}``
        for solvers that handle their passes themselves).
    share : float
        Share of the usual sample (:func:`calibrate_step`) that the brief runs use:
        below 1 for the buffer-based methods, whose updates cost O(buffer x d) each.
    model_vector : callable, optional
        For a model without ``coef`` (a kernel learner): ``model_vector(state)`` returns
        a vector whose squared norm is the model's squared norm, passed to ``objective``
        as ``w`` so that its penalty is the model's own (e.g. AOGD's random-feature
        weights). None: ``w`` is None for such models.
    resolve : callable, optional
        ``resolve(params, rows, y) -> params``: replaces data-dependent values (an
        ``"auto"`` regularisation weight) by the numbers the fit will use, computed on
        all the rows given before the sample is drawn, so that the brief runs and the
        objective see them.
    held_out : float or callable
        Share of each class of the sample kept out of the brief runs and used to score
        them (0: scored on the rows they learned from), or ``held_out(params, whole) ->
        float``, ``whole`` telling whether the sample holds every training row. For
        flexible models (the kernel learners), whose objective on the rows they learned
        keeps falling with larger steps when the sample is the whole of a small training
        set, and for weakly regularised objectives whose minimiser overfits few rows.
    prepare : callable, optional
        ``prepare(state, rows, params, y)``: fixes, once, what a run would fix from the
        data before its first step in the state the brief runs start from, when
        ``init_state`` draws random numbers (AOGD's bandwidth, which divides its
        frequencies and makes them read-only). Read-only arrays are shared by the brief
        runs, not copied, so AOGD's d x D/2 frequencies are neither redrawn nor copied.
    safety : int
        Rungs of the ladder (factors of :data:`LADDER_RATIO`) below the step the brief runs
        chose that the fit is given (0: that step). For learners whose iterates blow up
        abruptly past a step that the brief runs, shorter than a fit, still survive (the
        exponential pair weights of the KL-DRO partial-AUC learners).
    narrow : bool
        Whether the brief runs on a sparse sample may drop the columns it does not use
        (:func:`compact_columns`): exact when the state starts at zero whatever the width and
        a step moves only the columns of its rows and of the class means (SPAM), and it
        saves the O(d) work of every run (the state, its copies, ``coef``) on wide data.
    tolerance : float
        Relative: the smallest step whose objective is within this of the lowest is
        chosen (:data:`TOLERANCE`, which favours the safer of steps that fit alike; smaller
        for a solver that converges to the minimiser, where a larger step is faster).
    weight_power : float
        How the kernel's steps grow with the sample weights (notes.md#sample-weights): 1
        where a row's step is scaled by its weight, 2 where a pair's is scaled by the
        product of two, 0 where the kernel normalises them (an adaptive step, VRSPAM's
        ``n w_i / W``, the partial-AUC learners' weighted means). The ladder's centre is
        divided by the sample's mean weight to this power, so that weights multiplied by a
        constant leave the steps on the rows' terms as they were (the model too, but where
        a penalty applies apart from those terms; notes.md#sample-weights); all-ones
        weights give the same bits as none.
    """

    objective: Callable[..., float]
    unit: float = 1.0
    offset: float = 0.0
    power: float = 1.0
    brief: dict = None
    share: float = 1.0
    model_vector: Callable[[dict], np.ndarray] | None = None
    resolve: Callable[..., dict] | None = None
    held_out: float | Callable[[dict], float] = 0.0
    prepare: Callable[..., None] | None = None
    tolerance: float = TOLERANCE
    narrow: bool = False
    safety: int = 0
    weight_power: float = 1.0

    def centre(self, m2: float, weight: float = 1.0) -> float:
        """Return the centre of the ladder for mean squared row norm ``m2`` and mean row
        weight ``weight``."""
        with np.errstate(over="ignore", divide="ignore"):  # (the caller checks the ladder)
            return float(self.unit / (m2 + self.offset) ** self.power
                         / np.float64(weight) ** self.weight_power)

    def ladder(self, m2: float, weight: float = 1.0) -> list[float]:
        """Return the steps tried, smallest first."""
        c = self.centre(m2, weight)
        return [c * LADDER_RATIO**k for k in LADDER_POWERS]


# --------------------------------------------------------------------- sample
def sample_rows(rows: RowData, y: np.ndarray, size: int = SAMPLE_ROWS):
    """Return at most ``size`` rows spread evenly over each class, in a fixed random order.

    The rarer class keeps at least ``MINORITY_SHARE`` of the sample (or all its rows),
    so that a brief run on imbalanced data sees enough pairs.
    """
    n = rows.n_samples
    if n > size:
        classes = [np.flatnonzero(y > 0), np.flatnonzero(y <= 0)]
        rare = min(len(c) for c in classes)
        quota = [max(round(size * len(c) / n), min(rare, round(size * MINORITY_SHARE)))
                 if len(c) == rare else 0 for c in classes]
        quota = [q or size - sum(quota) for q in quota]
        pick = np.concatenate([c[np.linspace(0, len(c) - 1, min(q, len(c))).round().astype(
            np.intp)] for c, q in zip(classes, quota) if len(c)])
    else:
        pick = np.arange(n)
    pick = np.random.default_rng(_SEED).permutation(pick)
    if rows.is_sparse:
        return as_rows(as_matrix(rows)[pick]), y[pick]
    return as_rows(rows.data[pick]), y[pick]


def _draws(spec, params, n_samples: int) -> bool:
    """Whether ``spec.init_state`` draws random numbers (probed at one feature: cheap)."""
    rng = np.random.default_rng(_SEED)
    before = rng.bit_generator.state
    spec.init_state(1, n_samples, params, rng)
    return rng.bit_generator.state != before


def compact_columns(rows: RowData) -> RowData:
    """Return CSR ``rows`` restricted to the columns they use, renumbered in order.

    A brief run on a sample of sparse rows only moves the weights of the sample's columns
    (the others stay at zero, and so do their class means), so its scores and objective are
    those of the full width, at O(sample) rather than O(d) for the state, its copies and
    ``coef``. Used for the specs that declare it (``StepCalibration.narrow``) and whose
    ``init_state`` draws nothing.
    """
    stored = rows.indices[rows.indptr[0]:rows.indptr[-1]]
    if rows.n_features <= 8 * stored.size:  # a table of the columns: O(d + nnz), no sort
        mark = np.zeros(rows.n_features, dtype=bool)
        mark[stored] = True
        used = np.flatnonzero(mark)
        inverse = (np.cumsum(mark, dtype=np.intp) - 1)[stored]
    else:
        used, inverse = np.unique(stored, return_inverse=True)
    X = sp.csr_matrix((rows.data[rows.indptr[0]:rows.indptr[-1]], inverse.astype(np.int32),
                       rows.indptr - rows.indptr[0]), shape=(rows.n_samples, max(used.size, 1)))
    return as_rows(X)


def _mean_sq_norm(rows: RowData, y: np.ndarray) -> float:
    """Return the mean squared row norm, rows weighted by ``|y|`` (bit for bit the
    unweighted mean when every weight is 1)."""
    data, weights = rows.data, np.abs(y)
    with np.errstate(over="ignore", invalid="ignore"):  # (the caller checks for inf)
        if rows.is_sparse:
            data = data[rows.indptr[0]:rows.indptr[-1]]
            weighted = data * np.repeat(weights, np.diff(rows.indptr))
            total = data @ weighted
        else:
            total = np.einsum("ij,ij->", data, data * weights[:, None])
    return float(total) / float(np.sum(weights))


def _any_nonzero(rows: RowData, block: int = 4096) -> bool:
    """Whether any stored value is non-zero (block by block: usually the first block says)."""
    data = rows.data
    values = data.ravel() if data.ndim == 2 else data[rows.indptr[0]:rows.indptr[-1]]
    return any(values[i:i + block].any() for i in range(0, values.shape[0], block))


def usable(rows: RowData, y: np.ndarray) -> bool:
    """Whether the rows can calibrate a step: enough of them, both classes, a non-zero scale."""
    return (rows.n_samples >= MIN_ROWS and np.any(y > 0) and np.any(y < 0)
            and _any_nonzero(rows))


# ---------------------------------------------------------------- calibration
def _hold_out(rows: RowData, y: np.ndarray, share: float):
    """Split a shuffled sample into ``(rows, y)`` to learn from and ``(rows, y)`` to score:
    the last ``share`` of each class is scored (None if a class has fewer than 2 rows)."""
    classes = [np.flatnonzero(y > 0), np.flatnonzero(y <= 0)]
    if min(len(c) for c in classes) < 2:
        return (rows, y), None
    cut = [c[len(c) - max(int(share * len(c)), 1):] for c in classes]
    scored = np.zeros(len(y), dtype=bool)
    scored[np.concatenate(cut)] = True
    X = as_matrix(rows)
    return ((as_rows(X[~scored]), y[~scored]), (as_rows(X[scored]), y[scored]))


def _fresh_start(spec, params, rows: RowData, y) -> tuple:
    """Return what every brief run starts from: the sample's data statistics, and the state
    and generator after ``init_state`` (and the calibration's ``prepare``) when it draws
    random numbers (AOGD's d x D/2 frequencies: drawn once for every step tried), else None
    (a fresh state is as cheap as a copy, and keeping one would double the memory of O(d)
    states)."""
    stats = new_data_stats(rows.n_features)
    observe_data(stats, rows, y)
    rng = np.random.default_rng(_SEED)
    drawn = rng.bit_generator.state
    state = spec.init_state(rows.n_features, rows.n_samples, params, rng)
    if rng.bit_generator.state == drawn:
        return stats, None
    if spec.calibration.prepare is not None:
        spec.calibration.prepare(state, rows, params, y)
    return stats, (state, rng)


def _brief_run(spec, params, rows, y, passes, start, scored=None) -> float:
    """Run ``spec`` briefly on ``rows`` from a fresh state; return its objective (inf if it
    fails).

    The brief run makes the fit's passes (at most :data:`MAX_PASSES`), because the
    best step depends on the length of the schedule (e.g. ``eta0 / sqrt(t)`` with
    averaging favours larger steps over more passes). ``start`` is :func:`_fresh_start`'s
    (init_state does not read the step). The objective is that of ``scored = (rows, y)``
    if given, else of the rows learned.
    """
    stats, drawn = start
    if drawn is None:
        rng = np.random.default_rng(_SEED)
        state = spec.init_state(rows.n_features, rows.n_samples, params, rng)
    else:
        # arrays no run writes (read-only) are shared, the others copied
        state = {key: value if not value.flags.writeable else value.copy()
                 for key, value in drawn[0].items()}
        rng = copy.deepcopy(drawn[1])
    state.update({key: value.copy() for key, value in stats.items()})
    t = 0
    for epoch in range(passes):
        t, status = spec.run(state, rows, y, rng.permutation(rows.n_samples), params, t,
                             epoch == 0, rng)
        if status != OK:
            return np.inf
    rows, y = scored or (rows, y)
    if spec.coef is None:
        vector = spec.calibration.model_vector
        w, scores = (None if vector is None else vector(state)), spec.decision(state, params,
                                                                                 rows)
    else:
        w = spec.coef(state, params)
        scores = np.asarray(as_matrix(rows) @ w).ravel()
    if not np.all(np.isfinite(scores)):
        return np.inf
    value = spec.calibration.objective(scores, w, params, y)
    return value if np.isfinite(value) else np.inf


def brief_updates(n_samples: int, passes: int, stream: bool = False) -> int:
    """Return the updates of one brief run for a run of ``passes`` over ``n_samples`` rows.

    :data:`SAMPLE_ROWS`, or :data:`RUN_SHARE` of a fit's updates when that is more (at most
    :data:`MAX_UPDATES`): the best step of a decaying schedule depends on the run's length,
    and a brief run much shorter than the fit stops inside the transient of a step that
    the fit outlasts. A stream's length is unknown: :data:`SAMPLE_ROWS`.
    """
    if stream:
        return SAMPLE_ROWS
    return max(SAMPLE_ROWS, min(round(RUN_SHARE * n_samples * passes), MAX_UPDATES))


def _representable(ladder) -> bool:
    """Whether every step of ``ladder`` is a positive finite float64."""
    return all(0.0 < step < np.inf for step in ladder)


def calibrate_step(spec, params: dict, rows: RowData, y: np.ndarray,
                   passes: int = 1, stream: bool = False) -> tuple[float, dict]:
    """Return the calibrated value of ``spec.step_param`` and the trials.

    The ladder is climbed from its smallest step and, unless the objective is
    ``scale_free``, left once the objective has risen twice past its minimum
    (:func:`~aucopt.algorithms._step_choice.past_the_best`); then it is extended by up to
    :data:`MAX_EXTEND` steps beyond an end while the best step is at that end. Under
    ``max_time`` (the budget of the estimator call in progress,
    :func:`~aucopt.algorithms._time_budget.deadline_of`) no step is tried once it is spent.

    Parameters
    ----------
    spec : AlgorithmSpec
        Algorithm with a ``calibration``.
    params : dict
        The estimator's hyperparameters (the step is ``"auto"``).
    rows : RowData
        Training rows; a sample of at most :func:`brief_updates` updates per brief
        run is used (that number divided by the brief run's passes, at least
        :data:`MIN_SAMPLE` rows, times the calibration's ``share``). Check :func:`usable`
        first.
    y : ndarray
        Signed weights: ``±1``, or ``±w_i`` with sample weights (notes.md#sample-weights);
        the objective weighs rows by ``w_i`` and pairs by ``w_i w_j``.
    passes : int, default=1
        Passes the estimator will make over the data (``max_iter`` for ``fit``, 1
        for ``partial_fit`` and for solvers that run their own iterations); each
        brief run makes as many, at most :data:`MAX_PASSES`.
    stream : bool, default=False
        Whether ``rows`` are a stream's first chunk (``partial_fit``) rather than the whole
        training set: more rows will follow, so the sample is never scored on held-out rows
        for holding every training row (the calibration's ``held_out``), and the brief runs
        are :data:`SAMPLE_ROWS` long. So are they unless ``params`` has
        ``precondition="auto"`` (the papers' algorithms, as the reproduction configs run them).

    Returns
    -------
    step : float or None
        None when the sample's mean squared row norm underflows to 0 (the spec's own
        scale rule then applies). Otherwise the smallest step tried whose objective
        after a brief run is within the calibration's ``tolerance`` (relative) of the
        lowest; for a ``scale_free`` objective (see :func:`regularised`) the middle one
        of those steps. Backed off by the calibration's ``safety`` rungs of the ladder (and
        one more where held-out rows scored the runs and the next larger step failed),
        where :func:`~aucopt.algorithms._step_choice.backed_off` may go further down.
    trials : dict
        ``{step: objective}`` of every step tried.
    """
    # the papers' algorithms (precondition None or "none", as every reproduction config pins
    # it, and the ids without a preconditioner) keep the papers' calibration: brief runs of
    # SAMPLE_ROWS updates, so that the reproduced tables do not move
    updates = brief_updates(rows.n_samples, passes,
                            stream or params.get("precondition") != "auto")
    passes = max(1, min(passes, MAX_PASSES))
    size = max(updates // passes, MIN_SAMPLE)
    if spec.calibration.resolve is not None:  # on all the rows: the values the fit will use
        params = spec.calibration.resolve(params, rows, y)
    # the sample holds every row the run will learn (a stream's chunk never does)
    whole = not stream and rows.n_samples <= round(spec.calibration.share * size)
    given = rows
    rows, y = sample_rows(rows, y, round(spec.calibration.share * size))
    if spec.calibration.narrow and rows.is_sparse and not _draws(spec, params, rows.n_samples):
        rows = compact_columns(rows)
    scored = None
    held_out = spec.calibration.held_out
    held_out = held_out(params, whole) if callable(held_out) else held_out
    if held_out > 0:
        (rows, y), scored = _hold_out(rows, y, held_out)
    scale = _mean_sq_norm(rows, y)
    if not np.isfinite(scale) and first_non_finite_row(rows) >= 0:  # (not the weights')
        # refused with its row of X, not of the sample
        raise ValueError(non_finite_message(given, first_non_finite_row(given)))
    if not scale > 0:  # values so small that their squares underflow: no scale to centre on
        return None, {}
    brief = {**params, **(spec.calibration.brief or {})}
    start = _fresh_start(spec, brief, rows, y)
    trials = {}

    def trial(step):
        trials[step] = _brief_run(spec, {**brief, spec.step_param: step}, rows, y, passes,
                                  start, scored)

    # a sample this small gains nothing from BLAS threads, which only wait when the
    # other cores are busy (OPAUC^pca's covariance: 50x slower with 2 threads on 2 busy cores)
    # the fit's max_time covers the brief runs too: once it is spent no other step is tried
    deadline = deadline_of(params)
    weight = float(np.abs(y).mean())
    ladder = spec.calibration.ladder(scale, weight)
    if not _representable(ladder) and _representable(spec.calibration.ladder(scale)):
        raise ValueError(
            f"sample weights of mean {weight:.3g} put the steps that {spec.step_param}='auto' "
            f"would try beyond float64 (they follow the weights' size: "
            f"notes.md#sample-weights): divide the weights by their mean.")
    with np.errstate(all="ignore"), one_blas_thread():
        for step in ladder:
            trial(step)
            if deadline.passed() or (not scale_free(spec)
                                     and past_the_best(trials, spec.calibration.tolerance)):
                break
        for _ in range(MAX_EXTEND):  # the best step at an end of the ladder: extend it that way
            best = min(trials, key=trials.get)
            if (deadline.passed() or not np.isfinite(trials[best])
                    or min(trials) < best < max(trials)):
                break
            trial(best / LADDER_RATIO if best == min(trials) else best * LADDER_RATIO)
    best = chosen_step(spec, trials)
    rungs = spec.calibration.safety
    if scored is not None and not np.isfinite(trials.get(best * LADDER_RATIO, 0.0)):
        # scored on held-out rows, the objective can keep falling up to the last step that
        # survives a brief run, and a fit, longer, then fails with it (SPAM on 500 easy
        # Gaussian rows: 1.59 chosen, 6.35 diverged; the fit with 1.59 ranks at 0.48 AUC,
        # with 0.40 at 0.92): one rung below
        rungs += 1
    if rungs:  # that many rungs below, unless a step tried further down does clearly better
        best = backed_off(spec, trials, best / LADDER_RATIO**rungs)
    logger.debug("%s: %s='auto' trials %s -> %g", spec.id, spec.step_param, trials, best)
    return float(best), trials
