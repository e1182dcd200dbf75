"""The algorithm spec: what the front-ends need to know about one algorithm.

A spec owns the state layout (a dict of NumPy arrays), the conversion of the
estimator's hyperparameters into the kernel's named tuple, and the only call
into the kernel. Front-ends (the scikit-learn estimators, later River and Dask)
call ``init_state`` once, ``run`` once per pass, and ``coef`` to score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

__all__ = ["AlgorithmSpec", "RowData"]


class RowData(NamedTuple):
    """Rows as the kernels take them: ``(X, None, None)`` or a CSR triple."""

    data: np.ndarray
    indices: np.ndarray | None
    indptr: np.ndarray | None
    n_samples: int
    n_features: int

    @property
    def is_sparse(self) -> bool:
        """Whether the rows are CSR."""
        return self.indices is not None


@dataclass(frozen=True)
class AlgorithmSpec:
    """Description of one registered algorithm.

    Parameters
    ----------
    id : str
        Fixed registry id, e.g. ``"spam-l2"``.
    name : str
        Display name, e.g. ``"SPAM-L2"``.
    estimator : str
        ``"module:Class"`` of the public scikit-learn estimator.
    family : str
        Algorithm family (module name of the kernel), e.g. ``"spam"``.
    paper : str
        Full citation of the source publication.
    source : str
        Short citation for tables, e.g. ``"Natole et al., ICML 2018"``.
    streaming : bool
        Whether the algorithm learns one sample at a time (``partial_fit``).
    sparse : bool
        Whether CSR input is accepted.
    memory, cost : str
        Memory and per-step cost, e.g. ``"O(d)"``.
    init_state : callable
        ``init_state(n_features, n_samples, params, rng) -> dict[str, ndarray]``;
        ``rng`` is the estimator's ``numpy.random.Generator`` (e.g. for random
        features drawn once).
    run : callable
        ``run(state, rows, y, order, params, t, learn, rng) -> (t, status)``:
        one pass over ``order`` (or, with ``epochs_by_base=False``, the whole
        solve), mutating ``state`` in place. ``learn`` is True on the first
        pass over new rows. Random draws the kernel needs (sketches, reservoir
        coin flips, mini-batches) are drawn here from ``rng`` and passed in.
    coef : callable or None
        ``coef(state, params) -> ndarray of shape (d,)``: the linear scoring
        vector, exposed as ``coef_``. None for non-linear models.
    grid : mapping
        The paper's hyperparameter grid (param -> values).
    quick_grid : mapping
        At most 9 combinations covering the useful range, for the demo.
    step_param : str or None
        Hyperparameter to lower when the iterates diverge.
    calibration : StepCalibration or None
        How ``step_param="auto"`` is calibrated on the data
        (:mod:`aucopt.algorithms._calibrate`); None: the step is not calibrated.
    warm_keys : tuple of str
        State entries reused by ``warm_start=True``.
    equivalence_params : mapping
        Hyperparameters under which ``partial_fit`` over chunks equals one
        ``fit`` pass over their concatenation (used by the common tests).
    notes : str
        Practical notes shown by ``algorithm_info``.
    epochs_by_base : bool
        True: the estimator calls ``run`` once per pass, ``max_iter`` times
        (one-pass and epoch-based methods). False: ``run`` is called once per
        ``fit`` and handles ``max_iter`` itself (batch solvers, cutting planes).
    decision : callable or None
        ``decision(state, params, rows) -> ndarray (n,)`` raw scores for
        non-linear models; None means ``X @ coef``.
    mean_scores : callable or None
        ``mean_scores(state, params) -> (s_pos, s_neg)`` mean training score
        per class (None for a class not seen) used for ``intercept_``; None
        means ``w . m+`` and ``w . m-`` from the data statistics.
    """

    id: str
    name: str
    estimator: str
    family: str
    paper: str
    source: str
    streaming: bool
    sparse: bool
    memory: str
    cost: str
    init_state: Callable[..., dict[str, np.ndarray]]
    run: Callable[..., tuple[int, int]]
    coef: Callable[..., np.ndarray] | None
    grid: Mapping[str, tuple] = field(default_factory=dict)
    quick_grid: Mapping[str, tuple] = field(default_factory=dict)
    step_param: str | None = None
    calibration: Any = None
    warm_keys: tuple[str, ...] = ()
    equivalence_params: Mapping[str, Any] = field(default_factory=dict)
    notes: str = ""
    epochs_by_base: bool = True
    decision: Callable[..., np.ndarray] | None = None
    mean_scores: Callable[..., tuple] | None = None

    def quick_grid_size(self) -> int:
        """Return the number of combinations in ``quick_grid``."""
        size = 1
        for values in self.quick_grid.values():
            size *= len(values)
        return size
