"""Learning one row of a stream already started, on the row path of its spec.

River's ``learn_one`` and a one-row CSR ``partial_fit`` chunk learn the row in one compiled
call (:mod:`aucopt.algorithms._rowpath`: the spec's kernel inside the row's transaction,
the preconditioner's step for the row included), with the bits of
:meth:`~aucopt.linear_model._base.BaseAUCClassifier._fit_rows` on that row, which learns
whatever the path cannot (fastmath, a divergence, a fold of lazy scales, a bad row) from
the unchanged state.
"""

from __future__ import annotations

from .._kernels._checks import OK
from .._kernels.row_step import NOT_HERE
from ..algorithms._calibrate import AUTO_STEP_ATTR
from ..algorithms._fast import fastmath
from ..algorithms._precondition import SCALE_KEY, transform_rows
from ..algorithms._rowpath import row_path, scaled_row
from ._declared import READ_WITH

__all__ = ["RowLearning", "is_auto"]


def is_auto(value) -> bool:
    """Whether a hyperparameter's value is ``"auto"``."""
    return isinstance(value, str) and value == "auto"


class RowLearning:
    """Mixin of :class:`~aucopt.linear_model._base.BaseAUCClassifier`: the row path."""

    def _learn_row(self, rows, y) -> bool:
        """Learn one CSR row of a stream already started (``partial_fit`` on it, in effect).

        The spec's fused row kernel when it has one (:mod:`aucopt.algorithms._rowpath`); what
        it cannot do (fastmath, a divergence, a fold) goes through :meth:`_fit_rows` from the
        unchanged state. Returns whether the row path learnt it (the state's dict then
        holds the same arrays as before).
        """
        fitted, params = self.__dict__, self._params()
        path = fitted.get("_row_path")
        if path is None or not path.fits(fitted["_state"], params):
            path = fitted["_row_path"] = self._new_row_path(params)
        if path is not None and not fastmath():
            t, status = fitted["t_"], NOT_HERE
            if path.direct:  # one compiled call, the row as given
                t, status = path.learn(rows, y, t, fitted["_rng"])
            if status != OK and path.preconditioned:  # the rows scaled here
                t, status = self._scaled_path_row(path, fitted["_state"], params, rows, y)
            if status == OK:
                fitted["t_"], fitted["_fitted"], fitted[READ_WITH] = t, {}, params
                fitted.update(fitted["_row_commit"])
                return True
        self._fit_rows(rows, y, self.classes_, n_epochs=1, shuffle=False, reset=False,
                       stream=True)
        return False

    def _scaled_path_row(self, path, state, params, rows, y):
        """Learn a row on ``path`` with the preconditioner applied here (rows the path
        does not scale itself: centred columns, weights under ``"auto"``, a step to bind
        again); returns ``(t, status)``, the state as it was unless ``OK``."""
        found = scaled_row(state, rows, y, is_auto(params.get("precondition")),
                           self._centred(state))
        if found is not None:  # one compiled call, the bits of the lines below
            row, fixed = found
            transform = state
        else:
            transform, fixed = self._transform(params, rows, y, False, None)
            row = transform_rows(rows, transform, self._centred(transform))
        t, status = path(row.data, row.indices, row.indptr, y, self.t_, self._rng)
        if fixed is not None and status != OK:
            transform[SCALE_KEY][fixed] = 0.0  # the general path sets them again
        return t, status

    def _keep_auto_step(self, name: str, used, reset: bool) -> None:
        """Remember the step ``"auto"`` gave a stream (``used``, None: not calibrated yet),
        so that ``"auto"`` set again after a number given for some calls returns to it;
        a call with a number given keeps it (a ``fit`` forgets it)."""
        fitted = self.__dict__
        if is_auto(self._params().get(name)):
            fitted[AUTO_STEP_ATTR] = used
        elif reset or AUTO_STEP_ATTR not in fitted:
            fitted[AUTO_STEP_ATTR] = None

    def _auto_step_so_far(self, name: str):
        """The step ``"auto"`` gave this stream so far (None: to calibrate); a model loaded
        from a file saved before model files kept it continues with its last step ``name_``."""
        fitted = self.__dict__
        if AUTO_STEP_ATTR in fitted:
            return fitted[AUTO_STEP_ATTR]
        return fitted.get(name + "_")

    def _new_row_path(self, params):
        """Return the row path for the committed state and ``params`` (None: there is none)."""
        self._check_structure()  # params changed: not those that shape the state
        spec = self._spec()
        if spec.row_kernel is None:
            return None
        stepped, name = params, spec.step_param
        # an "auto" step takes the calibrated one; not calibrated yet, it stays "auto" (the
        # spec's scale rule): a single row never calibrates (MIN_ROWS > 1), as on the general
        # path. A number given since is the step (and the step_ the row leaves, as there)
        if spec.calibration is not None and is_auto(params.get(name)) and (
                self._auto_step_so_far(name) is not None):
            stepped = self._with_step(params, name, self._auto_step_so_far(name))
        # the attributes a row learnt there leaves, as a one-row call of _fit_rows does
        commit = {"n_iter_": 1} if spec.epochs_by_base else {}
        if spec.calibration is not None:
            commit[name + "_"] = None if isinstance(stepped[name], str) else stepped[name]
            if is_auto(params.get(name)):
                commit[AUTO_STEP_ATTR] = commit[name + "_"]
        self._row_commit = commit
        return row_path(spec, self._state, stepped, valid_for=params)
