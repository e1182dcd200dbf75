"""The four training strategies; functions named ``_on_*`` run on the workers.

Every strategy returns ``(state, rng, t, n_iter)`` for the estimator to commit,
except ``sequential``, whose state is the estimator itself travelling along.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import scipy.sparse as sp

from .._kernels._checks import OK
from .._kernels.spam import ClassStats
from .._kernels.vrspam import Snapshot, vrspam_inner, vrspam_snapshot
from ..algorithms import get_algorithm, vrspam
from ..algorithms._batch import relative_change
from ..algorithms._calibrate import (
    AUTO_RETRIES,
    LADDER_RATIO,
    RESTART_MESSAGE,
    calibrate_step,
    usable,
)
from ..algorithms._data import as_rows, identity_order
from ..algorithms._distributed import TAKE_LAST
from ..algorithms._time_budget import deadline_of
from ..algorithms.batch_pairwise import check_gram_memory, ls_svm_from_statistics, ls_svm_lam
from ..algorithms.batch_univariate import uni_squ_from_statistics, uni_squ_lam
from ..exceptions import DivergenceError
from ..utils._random import make_generator
from ..utils._warnings import recorded_warnings
from ._cluster import compute
from ._data import as_block, tree_reduce

__all__ = ["statistics", "sequential", "average", "svrg", "data_state", "calibrated",
           "with_auto_beta", "restarting"]

logger = logging.getLogger(__name__)


def data_state(stats, classes) -> dict:
    """Return the estimator's ``data_*`` entries (negatives first) from merged statistics."""
    rows = [stats[label.item()] for label in classes]
    return {"data_count": np.array([r[0] for r in rows], dtype=np.float64),
            "data_sum": np.array([r[0] * r[1] for r in rows]),
            "data_sqmax": np.array([max(r[3] for r in rows)])}


# ------------------------------------------------------------------ statistics
def check_statistics_memory(est, n_features):
    """Refuse before reading any data if one partition's two d x d scatters exceed the limit."""
    check_gram_memory(n_features, est.get_params(deep=False), 2,
                      f"{est._algorithm} with strategy='statistics' (per partition)",
                      "a streaming learner with strategy='average' (O(d) per partition)")


def statistics(est, stats, classes, n_features):
    """Solve B-LS-SVM, Uni-Squ (batch) or OPAUC's batch target from merged class statistics.

    All three are functions of the class means ``c+, c-`` and 1/n_class
    covariances ``S+, S-`` (Gao et al., ICML 2013, Eqs. 2-4): B-LS-SVM and
    OPAUC's fixed point are ``(lam I + S+ + S- + mu mu^T)^-1 mu``, Uni-Squ solves
    its normal equations (Kotlowski et al., ICML 2011). OPAUC keeps the exact
    class statistics in its state, so ``partial_fit`` continues from them.
    """
    spec, params = est._spec(), est.get_params(deep=False)
    rng = make_generator(est.random_state)
    (n_neg, m_neg, s_neg, q_neg, _), (n_pos, m_pos, s_pos, q_pos, _) = (
        stats[label.item()] for label in classes)
    state = spec.init_state(n_features, n_neg + n_pos, params, rng)  # checks the memory
    state.update(data_state(stats, classes))
    lam = params["lam"]
    if spec.id == "opauc":
        state["count"][:] = (n_neg, n_pos)
        state["mean"][:] = (m_neg, m_pos)
        state["scatter"][:] = (s_neg, s_pos)
        state["sqmax"][0] = max(q_neg, q_pos)
        state["w"][:] = ls_svm_from_statistics(m_pos, m_neg, s_pos / n_pos, s_neg / n_neg,
                                               float(lam))
        return state, rng, n_neg + n_pos, 1
    moments = (m_pos, m_neg, s_pos / n_pos, s_neg / n_neg)
    if spec.id == "uni-squ-batch":
        check_gram_memory(n_features, params, 3, "uni-squ-batch with strategy='statistics'",
                          "aucopt.make('uni-squ', ...) with strategy='average'")
        lam = uni_squ_lam(lam, moments, (n_pos, n_neg))
        state["w"][:], state["bias"][0] = uni_squ_from_statistics(*moments, lam)
    else:
        lam = ls_svm_lam(lam, moments, (n_pos, n_neg))
        state["w"][:] = ls_svm_from_statistics(*moments, lam)
    state["lam"][0] = lam  # lam="auto": the same GCV choice as on one machine
    state["n_iter"][0] = 1
    return state, rng, 1, 1


# ------------------------------------------------------------------ sequential
_CAUGHT = "_worker_warnings"  # the warnings of the steps, carried by the estimator


def _on_partial_fit(est, X, y, classes, k):
    try:
        with recorded_warnings() as caught:  # (a worker runs tasks in threads)
            est = est.partial_fit(as_block(X, k), np.asarray(y), classes=classes)
    except ValueError as exc:  # (a DivergenceError stays one)
        kind = DivergenceError if isinstance(exc, DivergenceError) else ValueError
        raise kind(f"partition {k}: {exc}") from exc
    est.__dict__.setdefault(_CAUGHT, []).extend(  # the user's (not deprecations of libraries)
        (k, str(w.message), w.category) for w in caught if issubclass(w.category, UserWarning))
    return est


def sequential(client, est, xs, ys, classes, progress=False):
    """Carry the estimator through the partitions in order: ``partial_fit`` on each.

    Each step runs where its partition is; only the model state travels. The
    result equals ``for X_k, y_k in parts: est.partial_fit(X_k, y_k, classes)``
    bit for bit, and the warnings of the steps (a stream sorted by label, a step
    calibrated again) are issued again on the client, where the user sees them.
    """
    import dask

    step = dask.delayed(_on_partial_fit, pure=True)
    for k, (x, y) in enumerate(zip(xs, ys)):
        est = step(est, x, y, classes, k)
    est = compute(client, est, progress)
    for k, message, category in est.__dict__.pop(_CAUGHT, []):
        warnings.warn(f"partition {k}: {message}", category, stacklevel=3)
    return est


# --------------------------------------------------------------------- average
def _signed(y, classes):
    return np.where(np.asarray(y).ravel() == classes[1], 1.0, -1.0)


def _rows(spec, X, k):
    X = as_block(X, k)
    if sp.issparse(X) and not spec.sparse:
        raise TypeError(f"partition {k} is sparse but {spec.name} takes dense input only.")
    return as_rows(X)


def _mixing(key, value, take_last):
    """How the entry ``key`` of partition states is mixed (see :func:`average`)."""
    if key.startswith("data_"):
        return "keep"
    if key in take_last:
        return "last"
    if key.endswith("sqmax"):
        return "max"
    return "add" if value.dtype.kind in "iub" or key.endswith(("_sum", "_count")) else "mean"


def _on_pass(algorithm, params, common, t, X, y, classes, learn, rng, k, shuffle, weight,
             take_last):
    """One pass over partition ``k`` from the ``common`` state; returns its mixing share.

    The share is ``(entries, updates, rng, take_last)`` with ``weight * entry``
    for averaged entries and the increment over ``common`` for added ones, so
    that shares combine pairwise on the workers (:func:`_combine`).
    """
    spec = get_algorithm(algorithm)
    rows = _rows(spec, X, k)
    state = {key: value.copy() for key, value in common.items()}
    order = rng.permutation(rows.n_samples) if shuffle else identity_order(rows.n_samples)
    t_end, status = spec.run(state, rows, _signed(y, classes), order, params, t, learn, rng)
    if status != OK:
        raise DivergenceError(f"{spec.name} diverged on partition {k} after {t_end} updates. "
                              f"Lower {spec.step_param!r} or scale the features first.")
    if spec.plain_form is not None:  # entries are mixed in the layout of the common state
        spec.plain_form(state, params, t_end)
    share = {}
    for key, value in state.items():
        how = _mixing(key, value, take_last)
        if how == "mean":
            share[key] = weight * value
        elif how == "add":
            share[key] = value - common[key]
        elif how != "keep":
            share[key] = value
    return share, t_end - t, rng, take_last


def _combine(left, right):
    """Combine two shares of :func:`_on_pass` (left: earlier partitions)."""
    (a, t_a, rng, take_last), (b, t_b, _, _) = left, right
    out = {}
    for key, value in a.items():
        how = _mixing(key, value, take_last)
        out[key] = (b[key] if how == "last" else np.maximum(value, b[key]) if how == "max"
                    else value + b[key])
    return out, t_a + t_b, rng, take_last


def mix(common, share):
    """Return the mixed state from ``common`` and the combined share of all partitions."""
    entries, _, _, take_last = share
    return {key: (value if key not in entries else
                  value + entries[key] if _mixing(key, value, take_last) == "add"
                  else entries[key])
            for key, value in common.items()}


def _generators(rng, n_parts):
    """The partitions' random generators: ``rng`` itself for one partition, else children."""
    return [rng] if n_parts == 1 else rng.spawn(n_parts)


def _calibrate_on(algorithm, params, X, y, classes, k, passes):
    """The calibrated "auto" step on partition ``k`` (None if it cannot calibrate one)."""
    spec = get_algorithm(algorithm)
    rows, signed = _rows(spec, X, k), _signed(y, classes)
    return calibrate_step(spec, params, rows, signed, passes)[0] if usable(rows, signed) else None


def calibrated(client, est, x, y, classes, passes, progress=False):
    """Return ``(trainer, step)``: ``est`` with its ``"auto"`` step calibrated on the first
    partition (as ``fit`` calibrates on its data), or ``(est, None)`` if it has no such step."""
    import dask
    from sklearn.base import clone

    spec, params = est._spec(), est.get_params(deep=False)
    if spec.calibration is None or params.get(spec.step_param) != "auto":
        return est, None
    passes = passes if spec.epochs_by_base else 1  # as fit: the solver runs its own stages
    step = compute(client, dask.delayed(_calibrate_on, pure=True)(
        spec.id, params, x, y, classes, 0, passes), progress)
    if step is None:
        return est, None
    trainer = clone(est).set_params(**{spec.step_param: step})
    trainer.n_features_in_ = est.n_features_in_
    return trainer, step


def restarting(train, est, step, *args):
    """Return ``(train(client, est, ...), step)``, restarting a calibrated step that diverges.

    As ``fit`` does: when ``step`` (the ``"auto"`` step calibrated on the first partition,
    None for a number the user gave) makes a partition diverge, the training restarts from
    the beginning with the step divided by ``LADDER_RATIO``, at most ``AUTO_RETRIES`` times;
    then the ``DivergenceError`` is raised. ``args`` are ``train``'s other arguments, the
    client first.
    """
    from sklearn.base import clone

    name = est._spec().step_param
    for retry in range(AUTO_RETRIES):
        try:
            return train(args[0], est, *args[1:]), step
        except DivergenceError:
            if step is None:
                raise
        step /= LADDER_RATIO
        trainer = clone(est).set_params(**{name: step})
        trainer.n_features_in_ = est.n_features_in_
        est = trainer
        logger.warning(RESTART_MESSAGE,
                       type(est).__name__, name, name, step, retry + 1, AUTO_RETRIES)
    return train(args[0], est, *args[1:]), step  # the last restart raises if it diverges


def average(client, est, xs, ys, classes, stats, sizes, n_rounds, progress=False,
            one_graph=False):
    """Iterative parameter mixing: ``n_rounds`` of (one pass per partition, then average).

    Every partition starts each round from the common state, with the exact
    class statistics of all the data (``stats="train"`` modes), and the states
    are averaged by partition size (Zinkevich et al., NIPS 2010, Alg. 2;
    McDonald et al., NAACL 2010, Alg. 3). Floating-point entries are averaged;
    counters and running sums (integer entries, names ending in ``_sum`` or ``_count``) add
    every partition's increment, as one pass over all the data would;
    ``*sqmax`` takes the maximum; ``TAKE_LAST`` entries (a buffer of the
    previous example) come from the last partition; ``data_*`` stay exact. The
    shares are combined pairwise on the workers, so the client receives one
    state per round. With one partition this is ``fit(max_iter=n_rounds)``.

    ``one_graph``: submit all the rounds as one graph (each round mixed on a worker and
    passed to the next), so that the client waits once instead of once per round; the
    same result. Only for partitions held in memory (persisted, or made from arrays):
    partitions read from files would be kept in the workers' memory from the first round
    to the last instead of read once per round.
    """
    import dask

    spec, params = est._spec(), est.get_params(deep=False)
    deadline = deadline_of(params)  # max_time: checked between rounds (never before the first)
    one_graph = one_graph and deadline.end is None
    rng = make_generator(est.random_state)
    n_total = int(sum(sizes))
    state = spec.init_state(est.n_features_in_, n_total, params, rng)
    state.update(data_state(stats, classes))
    weights = [n / n_total for n in sizes]
    take_last = TAKE_LAST.get(spec.id, ())
    step = dask.delayed(_on_pass, pure=True)
    t = 0
    for r in range(n_rounds):
        if r and deadline.passed():
            n_rounds = r
            break
        gens = _generators(rng, len(xs))
        shares = [step(spec.id, params, state, t, x, y, classes, r == 0, gen, k, est.shuffle,
                       wk, take_last)
                  for k, (x, y, gen, wk) in enumerate(zip(xs, ys, gens, weights))]
        share = tree_reduce(shares, _combine)
        if one_graph:  # the next round starts from delayed values: nothing is computed yet
            state, t = dask.delayed(mix, pure=True)(state, share), t + share[1]
            rng = share[2] if len(xs) == 1 else rng
            continue
        share = compute(client, share, progress)
        if len(xs) == 1:
            rng = share[2]
        state = mix(state, share)
        t += share[1]
    if one_graph and len(xs) == 1:
        state, rng, t = compute(client, [state, rng, t], progress)
    elif one_graph:
        state, t = compute(client, [state, t], progress)
    return state, rng, t, n_rounds


# ------------------------------------------------------------------------ svrg
def _on_snapshot(w_ref, stats, X, y, classes, n_total, k):
    rows = _rows(get_algorithm("vrspam-l2"), X, k)
    snap = Snapshot(w_ref, np.zeros(w_ref.shape[0]), np.empty(rows.n_samples))
    vrspam_snapshot(snap, stats, rows.data, rows.indices, rows.indptr, _signed(y, classes),
                    n_total)
    return snap.mu, snap.s_ref, rows


def _on_full_gradient(w_ref, stats, X, y, classes, n_total, k):
    return _on_snapshot(w_ref, stats, X, y, classes, n_total, k)[0]


def _on_inner(w_ref, mu, stats, X, y, classes, n_total, k, n_inner, rng, hyper, t):
    """The inner loop of one stage on partition ``k``: ``n_inner`` steps from the snapshot."""
    _, s_ref, rows = _on_snapshot(w_ref, stats, X, y, classes, n_total, k)
    picks = rng.integers(0, rows.n_samples, size=n_inner)
    w = w_ref.copy()
    t_end, status = vrspam_inner(w, Snapshot(w_ref, mu, s_ref), stats, rows.data, rows.indices,
                                 rows.indptr, _signed(y, classes), picks, hyper, t)
    if status != OK:
        raise DivergenceError(f"VRSPAM diverged on partition {k} after {t_end} inner steps; "
                              "lower 'eta' or scale the features first.")
    return w, t_end, rng


def _sum(*vectors):
    return sum(vectors)


def svrg(client, est, xs, ys, classes, stats, sizes, n_stages, progress=False):
    """Distributed proximal SVRG for VRSPAM (Dan and Sahoo; Natole thesis, Alg. 17).

    Each stage: the full gradient at the snapshot is a map-reduce over the
    partitions (O(d) per partition); each partition then runs its share of the
    ``inner`` steps from the snapshot, sampling its own rows, and the snapshot
    becomes the size-weighted average of their last iterates. The start is one
    mixed SPAM pass (``init="spam"``). Stops after ``n_stages`` stages or when
    the relative snapshot change is at most ``tol``.
    """
    import dask

    params = est.get_params(deep=False)
    n_total = int(sum(sizes))
    state, rng, t, _ = average(client, _spam_twin(est, params), xs, ys, classes, stats, sizes,
                               1, progress) if params["init"] == "spam" else (None, None, 0, 0)
    w = state["w_avg"] if state is not None else np.zeros(est.n_features_in_)
    rng = rng if rng is not None else make_generator(est.random_state)
    out = vrspam.init_state(est.n_features_in_, n_total, params)
    out.update(data_state(stats, classes))
    out["w"][:], out["started"][0], out["beta"][0] = w, 1, params["beta"]
    class_stats = ClassStats(out["data_count"], out["data_sum"], out["data_sqmax"])
    hyper, inner = vrspam.hyper(params), vrspam.inner_steps(params, n_total)
    weights = [n / n_total for n in sizes]
    shares = [inner] if len(xs) == 1 else [int(round(inner * wk)) for wk in weights]
    gradient = dask.delayed(_on_full_gradient, pure=True)
    step = dask.delayed(_on_inner, pure=True)
    t = 0
    deadline = deadline_of(params)  # max_time: checked between stages (never before the first)
    for stage in range(n_stages):
        if stage and deadline.passed():
            break
        w_ref = out["w"].copy()
        mu = compute(client, tree_reduce(
            [gradient(w_ref, class_stats, x, y, classes, n_total, k)
             for k, (x, y) in enumerate(zip(xs, ys))], _sum), progress)
        gens = _generators(rng, len(xs))
        results = compute(client, [
            step(w_ref, mu, class_stats, x, y, classes, n_total, k, m, gen, hyper, t)
            for k, (x, y, m, gen) in enumerate(zip(xs, ys, shares, gens))], progress)
        if len(xs) == 1:
            rng = results[0][2]
        out["w"][:] = sum(wk * w_k for wk, (w_k, _, _) in zip(weights, results))
        t += sum(t_k - t for _, t_k, _ in results)
        out["n_iter"][0] += 1
        out["change"][0] = relative_change(out["w"], w_ref)
        if out["change"][0] <= params["tol"]:
            break
    return out, rng, t, int(out["n_iter"][0])


def with_auto_beta(est, stats, classes):
    """Return ``est``, or a clone with VRSPAM's ``beta="auto"`` replaced by the number one
    machine would choose on all the data (from the merged class statistics: the pairs'
    mean squared distance is ``E+ ||x||^2 + E- ||x||^2 - 2 m+.m-``)."""
    from sklearn.base import clone

    if est.get_params(deep=False)["beta"] != "auto":
        return est
    (n_neg, m_neg, _, _, r_neg), (n_pos, m_pos, _, _, r_pos) = (
        stats[label.item()] for label in classes)
    spread = max(r_pos / n_pos + r_neg / n_neg - 2.0 * float(m_pos @ m_neg), 0.0)
    trainer = clone(est).set_params(beta=vrspam.auto_beta(spread, (float(n_pos), float(n_neg))))
    trainer.n_features_in_ = est.n_features_in_
    return trainer


def _spam_twin(est, params):
    """A SPAM estimator with VRSPAM's start settings (``_spam_start`` of the single machine)."""
    from .._api import make

    twin = make("spam-net" if "beta1" in params else "spam-l2", beta=params["beta"],
                eta0=params["eta0"], t0=vrspam.START_T0, schedule="inv_sqrt", power_t=0.5,
                stats="train", warmup=0.1, output="average", shuffle=est.shuffle,
                random_state=est.random_state, **({"beta1": params["beta1"]}
                                                  if "beta1" in params else {}))
    twin.n_features_in_ = est.n_features_in_
    return twin
