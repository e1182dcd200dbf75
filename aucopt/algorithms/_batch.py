"""What the batch (finite-sum) solvers share: declarations, spec fields, the stage loop.

Used by VRSPAM, SPDAM, MBA and the batch pairwise baselines: they keep the whole
training set, and ``run`` does the whole solve of a ``fit`` call.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._kernels._checks import OK
from ._params import NON_NEGATIVE, POSITIVE, Param, common

__all__ = ["BATCH", "batch_common", "max_memory_gb", "stage_tol", "relative_change",
           "run_stages"]

# AlgorithmSpec fields of every batch solver.
BATCH = dict(streaming=False, sparse=True, epochs_by_base=False)


def batch_common(*, max_iter: int, max_iter_doc: str, shuffle_default: bool = True,
                 **docs: str) -> tuple[Param, ...]:
    """Return :func:`~aucopt.algorithms._params.common` with a batch solver's descriptions.

    Parameters
    ----------
    max_iter : int
        Default of ``max_iter``.
    max_iter_doc : str
        Its description.
    shuffle_default : bool, default=True
        Default of ``shuffle``.
    **docs : str
        Descriptions that replace the common ones (``shuffle``, ``random_state``,
        ``warm_start``, ``verbose``); ``verbose`` defaults to one line per ``fit``.

    Returns
    -------
    tuple of Param
    """
    docs.setdefault("verbose", "Log one line per ``fit`` at INFO level on the ``aucopt`` logger.")
    out = []
    for p in common(max_iter=max_iter, max_iter_doc=max_iter_doc):
        changes = {"doc": docs[p.name]} if p.name in docs else {}
        if p.name == "shuffle" and shuffle_default is not True:
            changes["default"] = shuffle_default
        out.append(p.replace(**changes) if changes else p)
    return tuple(out)


def max_memory_gb(doc: str) -> Param:
    """Declare ``max_memory_gb``, the limit on the dense d x d matrices a solver forms."""
    return Param("max_memory_gb", 2.0, (POSITIVE,), "float", doc)


def stage_tol(default: float, stage: str) -> Param:
    """Declare ``tol``, the threshold of :func:`run_stages` (``stage``: what one stage is)."""
    return Param("tol", default, (NON_NEGATIVE,), "float", f"""
        Stop when the relative change of :math:`w` over one {stage},
        :math:`\\|w_s - w_{{s-1}}\\| / \\|w_s\\|`, is at most ``tol``; 0 runs all
        ``max_iter`` {stage}s.""")


def relative_change(w: np.ndarray, previous: np.ndarray) -> float:
    """Return ``||w - previous|| / max(||w||, 1e-12)``."""
    return float(np.linalg.norm(w - previous)) / max(float(np.linalg.norm(w)), 1e-12)


def run_stages(state: dict, t: int, max_iter: int, tol: float,
               stage: Callable[[int], tuple[int, int]]) -> tuple[int, int]:
    """Run up to ``max_iter`` stages; stop when the relative change of ``w`` is ``<= tol``.

    Parameters
    ----------
    state : dict
        Holds ``w`` (changed by the stages), ``n_iter`` (1,) (stages run) and
        ``change`` (1,) (the last relative change of ``w``), both written here.
    t : int
        Updates done before the first stage.
    max_iter : int
        Most stages to run.
    tol : float
        Stopping threshold on :func:`relative_change`; 0 runs all stages.
    stage : callable
        ``stage(t) -> (t, status)``: one stage, updating ``state["w"]`` in place.

    Returns
    -------
    t : int
    status : int
        ``OK``, or the first other status a stage returned (the loop stops there).
    """
    w = state["w"]
    state["n_iter"][0] = 0
    for _ in range(max_iter):
        previous = w.copy()
        t, status = stage(t)
        if status != OK:
            return t, status
        state["n_iter"][0] += 1
        state["change"][0] = relative_change(w, previous)
        if state["change"][0] <= tol:
            break
    return t, OK
