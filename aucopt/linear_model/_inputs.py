"""Input checks of the estimators: ``X`` and ``y`` validated and encoded for the kernels.

:class:`InputChecks` is a mixin of :class:`aucopt.linear_model._base.BaseAUCClassifier`:
scikit-learn's validation with hints for common mistakes, duplicate CSR entries summed,
two-class label checks and the +-1 encoding (one numba pass for native numeric labels),
and the fast path of ``partial_fit`` for chunks that need no conversion.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_sample_weight, validate_data

from .._kernels._labels import distinct_two, sign_labels
from ..algorithms._data import as_rows
from ..algorithms._structure import check_sparse_structure

__all__ = ["InputChecks", "owns_values", "STREAM_LABELS_HINT", "SCORE_LABELS_HINT"]

# what to do about labels outside classes_, in a stream and when scoring
STREAM_LABELS_HINT = "Pass the complete label set with classes= on the first partial_fit call."
SCORE_LABELS_HINT = ("score ranks classes_[1] against classes_[0]: pass y in the labels the "
                     "model was fitted with.")

_CSR_TYPES = (sp.csr_matrix, sp.csr_array)

# dtypes of the numba label passes: bool, (u)int8-64, float32/64
_JIT_LABEL_TYPES = frozenset("?bBhHiIlLqQfd")

_INPUT_HINTS = (
    ("could not convert", " X must be numeric: encode categorical columns first "
     "(e.g. sklearn.preprocessing.OneHotEncoder)."),
    ("infinity", " Remove or clip infinite values (e.g. numpy.nan_to_num) before fitting."),
)


def _jit_labels(*arrays) -> bool:
    """Whether the numba label passes take these arrays (native numeric or boolean dtypes)."""
    return all(a.dtype.char in _JIT_LABEL_TYPES and a.dtype.isnative for a in arrays)


def _two_values(y) -> np.ndarray | None:
    """Return the sorted distinct values of a numeric 1-d ``y`` if there are at most two.

    One pass without temporaries instead of a sort (``numpy.unique`` and
    ``type_of_target`` took 13 ms of a 50 ms SPAM pass on 200k labels). None for
    anything else (other dtypes, NaN or inf, more values): the caller then runs
    the full checks.
    """
    if not isinstance(y, np.ndarray) or y.ndim != 1 or y.size == 0 or not _jit_labels(y):
        return None
    k, a, b = distinct_two(y)
    if k > 2:
        return None
    values = np.array(sorted((a, b)) if k == 2 else [a], dtype=y.dtype)
    return values if y.dtype.kind != "f" or np.isfinite(values).all() else None


def _sum_duplicates(out):
    """Return the validated ``X`` (or ``(X, y)``) with duplicate CSR entries summed.

    A CSR matrix may hold a column twice in a row (valid in scipy, ``toarray()``
    sums them); the kernels read entries one by one and would treat them as two
    features. A non-canonical matrix is copied first: the caller's is not modified.
    """
    X = out[0] if isinstance(out, tuple) else out
    if not sp.issparse(X) or X.has_canonical_format:
        return out
    X = X.copy()
    X.sum_duplicates()
    return (X, *out[1:]) if isinstance(out, tuple) else X




def _all_zero(sample_weight, n: int) -> bool:
    """Whether ``sample_weight`` is ``n`` numbers, or one number for every row, that are all
    0 (anything else: False, for the checks of ``_weigh`` to judge)."""
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return weights.shape in ((n,), ()) and not weights.any()


def owns_values(values: np.ndarray, given) -> bool:
    """Whether ``values`` (the kernel rows' dense array or CSR values) are a copy aucopt
    made of the caller's ``given`` (converted from float32, Fortran order, COO, a list,
    a subset by weight, ...), which the preconditioner may then transform in place; False
    wherever they may be a view of what the caller holds (a pandas frame, an array)."""
    if isinstance(given, list | tuple):
        return True
    if sp.issparse(given):
        given = getattr(given, "data", None)
        if not isinstance(given, np.ndarray) or given.dtype == object:
            return True  # DOK, LIL: their entries are copied into a new CSR
    elif not isinstance(given, np.ndarray):
        return False
    return not np.may_share_memory(values, given)


class InputChecks:
    """Validation of ``X`` and ``y`` for an estimator with ``_spec()`` and ``classes_``."""

    def _validate_input(self, X, y="no_validation", *, reset, check_finite=True):
        """Validate ``X`` (and ``y``). With ``check_finite=False`` (the training calls) the
        NaN/inf check is left to the class-statistics pass, which sees every value anyway
        (:func:`aucopt.algorithms._data.observe_data`): one read of ``X`` less."""
        sparse = "csr" if self._spec().sparse else False
        if sp.issparse(X):  # before scipy's C++ code or a kernel reads its index arrays
            check_sparse_structure(X)
        try:
            out = validate_data(
                self, X, y, accept_sparse=sparse, dtype=np.float64, order="C", reset=reset,
                ensure_all_finite=check_finite,
            )
            return _sum_duplicates(out)
        except ValueError as exc:
            message = str(exc)
            hints = "".join(h for key, h in _INPUT_HINTS if key in message)
            if not hints:
                raise
            raise ValueError(message + hints) from exc

    def _check_targets(self, y) -> np.ndarray:
        """Return the sorted classes of ``y``; reject non-class and multiclass targets."""
        classes = _two_values(y)
        if classes is not None:  # the label type depends only on the set of values
            kind = type_of_target(classes, input_name="y", raise_unknown=True)
            if kind == "binary":
                return classes
        kind = type_of_target(y, input_name="y", raise_unknown=True)
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {kind!r}. {type(self).__name__} needs class labels "
                "with exactly two values (e.g. -1/+1 or 0/1); for continuous targets use a "
                "regressor."
            )
        classes = np.unique(y)
        if classes.size > 2:
            raise ValueError(
                f"Only binary classification is supported. y has {classes.size} classes "
                f"{classes.tolist()[:10]}; binarise it first (aucopt.datasets.binarize) or wrap "
                "the estimator in sklearn.multiclass.OneVsRestClassifier."
            )
        return classes

    @staticmethod
    def _signed_labels(y, classes, hint=STREAM_LABELS_HINT) -> np.ndarray:
        """Return ``+1.0`` where ``y == classes[1]`` and ``-1.0`` elsewhere; reject other labels.

        Parameters
        ----------
        y : ndarray
            Labels.
        classes : ndarray of shape (2,)
            The two known labels; ``classes[1]`` is positive.
        hint : str, default=STREAM_LABELS_HINT
            What to do, appended to the error naming the unknown labels.

        Returns
        -------
        ndarray of float64, of the shape of ``y``

        Raises
        ------
        ValueError
            If ``y`` holds a label that is not in ``classes``.
        """
        if _jit_labels(y, classes) and y.ndim == 1:
            signed = np.empty(y.shape[0])
            unknown = sign_labels(y, classes[1], classes[0], signed) if y.size else 0
        else:
            positive = y == classes[1]
            unknown = len(y) - np.count_nonzero(positive) - np.count_nonzero(y == classes[0])
            signed = np.where(positive, 1.0, -1.0)
        if unknown:
            unknown = np.setdiff1d(np.unique(y), classes)
            raise ValueError(
                f"y contains labels {unknown.tolist()} that are not in classes "
                f"{classes.tolist()}. {hint}"
            )
        return signed

    def _weigh(self, X, signed, sample_weight, *, chunk=False):
        """Return ``(X, signed)`` with the sample weights folded into the signed labels.

        The kernels read a row's class from the sign of its label and its weight from
        the magnitude (``y_i = ±w_i``, notes.md#sample-weights). Rows of weight 0 are
        dropped here, so they cost nothing and count nowhere; all-ones weights leave the
        labels ``±1`` (the same result as no weights, bit for bit). A ``chunk`` of a
        stream whose weights are all 0 gives no rows (``fit`` refuses such weights).
        """
        if sample_weight is None:
            return X, signed
        if chunk and _all_zero(sample_weight, X.shape[0]):
            return X[:0], signed[:0]
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                       ensure_non_negative=True)
        if not np.isfinite(weights).all():
            raise ValueError("sample_weight holds NaN or infinite values; give every row a "
                             "finite weight >= 0 (0 leaves the row out).")
        if not np.isfinite(weights.sum()):
            raise ValueError("sample_weight sums to more than float64 can hold (weights up to "
                             f"{weights.max():.3g}); rescale them (e.g. divide by their "
                             "maximum: only their ratios matter to the batch methods).")
        keep = weights > 0
        if not keep.all():
            X, signed, weights = X[keep], signed[keep], weights[keep]
        if (weights == 1.0).all():
            return X, signed
        return X, signed * weights

    def _plain_rows(self, X, y):
        """Return ``X`` as kernel rows if it needs no conversion, else None (the full checks).

        The fast path of ``partial_fit`` on small chunks: a float64 C-ordered ndarray or a
        float64 CSR matrix in canonical form, as wide as the data seen, without feature
        names, and a 1-d ndarray ``y`` of the same length. Values are checked by the
        class-statistics pass (NaN, infinity) and the label encoding (unknown labels), as
        on the full path.
        """
        if type(y) is not np.ndarray or y.ndim != 1 or "feature_names_in_" in self.__dict__:
            return None
        if type(X) is np.ndarray:
            plain = X.dtype == np.float64 and X.ndim == 2 and X.flags.c_contiguous
        elif type(X) in _CSR_TYPES:  # sorted, no repeated columns: else the full path
            plain = X.dtype == np.float64 and self._spec().sparse and X.ndim == 2
        else:
            return None
        shape = X.shape
        if not plain or shape[1] != self.n_features_in_ or shape[0] != y.shape[0] or not shape[0]:
            return None
        if type(X) is not np.ndarray:
            check_sparse_structure(X)  # before has_canonical_format reads the indices
            if not X.has_canonical_format:
                return None
        return as_rows(X)
