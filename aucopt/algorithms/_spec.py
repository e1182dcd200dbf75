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

from .._kernels._state import data_shaped, signed

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
    params : tuple of Param
        The declarations of the estimator's hyperparameters, in the order of its
        ``__init__`` (:mod:`aucopt.algorithms._params`): the one place where a
        hyperparameter's default, constraints, doc and kernel scalar are written.
    check_params : callable or None
        ``check_params(params) -> None``: rules between hyperparameters that their
        constraints cannot state; raises ValueError. Run with the constraints.
    state : tuple of NamedTuple types
        The family's typed state (:mod:`aucopt._kernels._state`), the plain form
        first, then any lazy form a CSR stream keeps between calls. When given,
        ``data_shaped`` and ``signed_state`` default to what it declares.
    grid : mapping
        The paper's hyperparameter grid (param -> values).
    quick_grid : mapping
        At most 9 combinations covering the useful range, for the demo.
    step_param : str or None
        Hyperparameter to lower when the iterates diverge.
    other_steps : tuple of str
        Further step sizes whose pass may diverge (a start run with its own step, the step
        of another part of the update): a divergence error names them too.
    divergence_hint : callable or None
        ``divergence_hint(params) -> str or None``: a sentence a divergence error adds for
        a hyperparameter that multiplies the steps (e.g. ``1 / max_fpr``), when it does.
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
    data_shaped : tuple of str
        State entries whose shape depends on the data seen (stored training
        sets, buffers that widen with the rows): :func:`aucopt.io.load` checks
        only their dtype and number of dimensions against ``init_state`` and
        leaves their shape to ``check_state``.
    signed_state : tuple of str
        Integer state entries that may legitimately be negative (markers);
        every other integer entry of a loaded state must be >= 0.
    check_state : callable or None
        ``check_state(state, params, n_features) -> None``: the rules of a
        valid state that the layout of ``init_state`` does not show (shapes of
        ``data_shaped`` entries, index and counter bounds); raises ValueError.
        Run by :func:`aucopt.io.load` on every loaded state, so that no kernel
        indexes out of bounds.
    lazy_form : callable or None
        ``lazy_form(state, params) -> None``: switch a fresh ``init_state`` state in
        place to the form the CSR kernel keeps between ``partial_fit`` calls (scale
        factors and running sums instead of the plain iterates), so that
        :func:`aucopt.io.load` can check a state saved in either form. None: one form.
    plain_form : callable or None
        ``plain_form(state, params, t) -> None``: switch a state in either form to
        the plain form of ``init_state`` in place (O(d); nothing if it is plain), for
        code that combines states entry by entry (:mod:`aucopt.distributed`).
    warm_values : callable or None
        ``warm_values(state) -> dict``: the ``warm_keys`` entries of a committed state,
        for states kept in another form (e.g. lazily scaled); None: the entries as stored.
    column_keys : tuple of str
        State entries (per-feature arrays, feature axis 0 for ``(d,)``/``(d, k)``, axis 1
        for ``(k, d)``) that ``run`` on CSR rows writes only at the columns of those rows:
        a streaming call then saves only those entries for its all-or-nothing update
        (O(nnz), not O(d)). ``run`` then takes a keyword ``before_dense`` (a callable or
        None) and calls it before it writes any of them elsewhere (an O(d) rescaling, a
        dense pass), and draws nothing from ``rng``. Empty: the estimator copies the whole
        writable state per call.
    weights : {"statistics", "steps"} or None
        How ``run`` honours sample weights carried by the signed labels ``y = ±w``
        (notes.md#sample-weights): ``"statistics"``, the model depends on the data through
        weighted statistics only, so integer weights equal row duplication exactly;
        ``"steps"``, a stochastic step on a row is scaled by its weight (duplication holds
        for the statistics, not step for step, or a method draws rows). Every algorithm
        declares one (``tests/test_sample_weight.py``).
    row_kernel : callable or None
        ``row_kernel(state, params) -> (kernel, fixed, held) | None``: a compiled update of
        one streaming row, ``kernel(*fixed, data, indices, indptr, y, t) -> (t, status)``,
        for ``state`` as it is (None: not in this form); ``held``: arrays ``fixed``
        refers to by address (:mod:`aucopt._kernels._bound`), kept alive with it. It must
        give the bits of ``run`` on a one-row chunk and leave the state unchanged when its
        status is not ``OK`` (see :mod:`aucopt.algorithms._rowpath`). None: rows take the
        general path.
    upgrade_state : callable or None
        ``upgrade_state(state) -> None``: rename, in place, the entries of a state saved
        by an earlier version of aucopt into the current layout (run by
        :func:`aucopt.io.load` before its checks; a state in the current layout is left
        as it is).
    extra_columns : callable or None
        ``extra_columns(state) -> ndarray``: further columns a ``run`` on CSR rows writes
        in the ``column_keys`` entries besides those of its rows (e.g. of a row stored by
        an earlier call), taken before the call.
    clip_rows : bool
        Whether ``precondition="auto"`` shortens the training rows longer than
        ``ROW_CLIP`` times their median length (:mod:`aucopt.algorithms._precondition`), which
        keeps a few long rows from dominating stochastic steps. False for a solver whose
        objective is decided by the extreme rows (the partial-AUC SVM: its loss is on the
        negatives scored highest, which the bound would reshape): its rows are only centred
        and scaled (notes.md#preconditioning).
    coef_terms : callable or None
        ``coef_terms(state, params) -> ((c, key, col), ...) | None``: ``coef`` of ``state``
        as ``sum c * state[key][:, col]`` (``col`` 0 for a ``(d,)`` entry, or the first
        ``d`` entries of a longer 1-D one), so that one row is scored from the weights at
        its features (:mod:`aucopt.algorithms._row_score`): in O(nnz) between updates when
        every ``key`` is in ``column_keys``; otherwise the intercept's dots are formed
        afresh (O(d), one compiled call) after each update. None (or a None result):
        ``coef`` is formed.
    zero_reason : callable or None
        ``zero_reason(state, params) -> str | None``: why a fitted state's weights are all
        zero, where the spec can tell (e.g. ``w = 0`` certified as the objective's
        minimiser), for the warning a fit that ends with constant scores gives; None (or a
        None result): the general message (penalties that do not scale with the features).
    model_key : str or None
        The state entry of a model without ``coef_`` (a kernel expansion's coefficients)
        whose all-zero value means that every score is the same: ``fit`` warns about it
        as about an all-zero ``coef_``.
    exact_blocks : bool
        Whether ``run`` over consecutive parts of ``order`` (the same ``learn``) gives the
        bits of one ``run`` over all of it: under ``max_time`` the estimator then runs a
        long pass in blocks of rows and checks the budget between them
        (:func:`aucopt.algorithms._time_budget.run_pass`). False where a call sets up
        sums or scales afresh (the blocks then agree to rounding only): its passes run
        whole (``tests/test_safety_budget.py`` checks the True ones).
    """

    id: str
    name: str
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
    params: tuple = ()
    check_params: Callable[[dict], None] | None = None
    state: tuple = ()
    grid: Mapping[str, tuple] = field(default_factory=dict)
    quick_grid: Mapping[str, tuple] = field(default_factory=dict)
    step_param: str | None = None
    other_steps: tuple[str, ...] = ()
    divergence_hint: Callable[[dict], str | None] | None = None
    calibration: Any = None
    warm_keys: tuple[str, ...] = ()
    equivalence_params: Mapping[str, Any] = field(default_factory=dict)
    notes: str = ""
    epochs_by_base: bool = True
    decision: Callable[..., np.ndarray] | None = None
    mean_scores: Callable[..., tuple] | None = None
    data_shaped: tuple[str, ...] = ()
    signed_state: tuple[str, ...] = ()
    check_state: Callable[..., None] | None = None
    lazy_form: Callable[[dict, dict], None] | None = None
    plain_form: Callable[[dict, dict, int], None] | None = None
    warm_values: Callable[[dict], dict] | None = None
    column_keys: tuple[str, ...] = ()
    extra_columns: Callable[[dict], np.ndarray] | None = None
    upgrade_state: Callable[[dict], None] | None = None
    weights: str | None = None
    row_kernel: Callable[..., tuple | None] | None = None
    exact_blocks: bool = True
    clip_rows: bool = True
    coef_terms: Callable[..., tuple | None] | None = None
    zero_reason: Callable[[dict, dict], str | None] | None = None
    model_key: str | None = None

    def __post_init__(self):
        if self.state:
            for name, derive in (("data_shaped", data_shaped), ("signed_state", signed)):
                if not getattr(self, name):
                    found = tuple(dict.fromkeys(f for t in self.state for f in derive(t)))
                    object.__setattr__(self, name, found)

    def param(self, name: str):
        """Return the declaration of hyperparameter ``name`` (KeyError if undeclared)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def quick_grid_size(self) -> int:
        """Return the number of combinations in ``quick_grid``."""
        size = 1
        for values in self.quick_grid.values():
            size *= len(values)
        return size
