"""The parts of ``aucopt fit`` besides the command: scaling folded into a linear model,
one pass over a LIBSVM file, and the warnings and checks around them."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import split_list


def warn_unscaled(est, X, algorithm) -> None:
    """Warn on stderr, naming ``--preprocess``, when unscaled features meet a learner that
    steps by their scale (not one that rescales itself with ``precondition``)."""
    from ._data import unscaled_features

    own = est.get_params(deep=False).get("precondition")
    if own not in (None, False, "none", "off"):
        return
    why = unscaled_features(X)
    if not why:
        return
    advice = ("Add --preprocess minmax (bounded features) or --preprocess standard (heavy "
              "tails); the saved model still takes the raw features." if _linear(est) else
              "Scale the data file first (min-max for bounded features, standardisation for "
              "heavy tails): a non-linear model cannot take --preprocess into the model it "
              "saves.")  # (fit_scaled refuses it)
    typer.echo(f"warning: {why}; {algorithm} steps by the scale of the features and can "
               f"stop far from the best AUC. {advice}", err=True)


def _linear(est) -> bool:
    """Whether ``est`` scores by ``coef_`` (a scaling of the features folds into it)."""
    from ..linear_model import AUCClassifier

    return isinstance(est, AUCClassifier) or hasattr(est, "coef_") or (
        est._spec().coef is not None)  # auto picks linear learners only


def fit_scaled(est, X, y, scheme):
    """Fit ``est`` on ``X`` scaled by ``scheme``, then fold the scaling into ``coef_``.

    A per-feature affine map ``x' = s x + o`` gives ``w . x' = (w s) . x + w . o``,
    so the saved model scores raw rows exactly as the fitted one scores scaled rows.
    """
    import numpy as np
    import scipy.sparse as sp

    from .._api import picked
    from ..datasets import make_preprocessor

    if sp.issparse(X) and X.shape[0] * X.shape[1] <= 5e7:
        X = X.toarray()  # the dense formula of the scheme (CSR "minmax" is max-abs scaling)
    scaler = make_preprocessor(scheme).fit(X)
    d = X.shape[1]
    offset = np.asarray(_dense(scaler.transform(np.zeros((1, d))))).ravel()
    scale = np.asarray(_dense(scaler.transform(np.ones((1, d))))).ravel() - offset
    probe = np.random.default_rng(0).normal(size=(1, d))
    affine = np.allclose(_dense(scaler.transform(probe)).ravel(), scale * probe.ravel() + offset)
    if not _linear(est):
        raise ValueError(f"--preprocess {scheme} cannot be folded into a saved "
                         f"{type(est).__name__}: it is not a linear model; scale the data "
                         "file yourself.")
    if not affine:
        raise ValueError(f"--preprocess {scheme} cannot be folded into a saved model: use "
                         "minmax, standard or robust (a scale and an offset per feature), or "
                         "scale the data file yourself.")
    est.fit(scaler.transform(X), y)
    model = picked(est)  # what is saved (auto: the estimator it chose)
    w = model.coef_[0]
    model.intercept_ = model.intercept_ + float(w @ offset)
    model.coef_ = (w * scale)[None, :]


def _dense(M):
    return M.toarray() if hasattr(M, "toarray") else M


def fit_stream(est, data, chunk_size, n_features, classes, shuffle_buffer, seed,
                zero_based):
    """One bounded-memory pass of ``partial_fit`` over a LIBSVM file, through a shuffle
    buffer; returns ``(file name, rows, index base)`` (None: zero-based if the file's first
    chunk holds an index 0)."""
    import numpy as np

    from ..datasets import iter_svmlight
    from ..datasets._stream import leading_zero_based

    path = Path(data)
    if not path.exists():
        raise ValueError(f"--stream needs a LIBSVM file path; {data!r} is not a file.")
    if not hasattr(est, "partial_fit"):
        raise ValueError(f"{type(est).__name__} is a batch algorithm (no partial_fit); "
                         "drop --stream.")
    if n_features is None:
        raise ValueError("--stream needs --n-features (chunks must all have the model's width).")
    labels = np.array([float(c) for c in split_list(classes)])
    if zero_based is None:  # the file's first lines, whatever the shuffle brings first
        zero_based = leading_zero_based(path, chunk_size)
    seen = 0
    for X, y in iter_svmlight(path, chunk_size=chunk_size, n_features=n_features,
                              zero_based=zero_based, shuffle_buffer=shuffle_buffer,
                              random_state=seed):
        unlisted = np.setdiff1d(y, labels)
        if unlisted.size:  # (partial_fit's own message names its classes= argument)
            raise ValueError(
                f"{path.name} has the label(s) {', '.join(str(v) for v in unlisted[:5])} that "
                f"--classes {','.join(str(v) for v in labels)} does not list: give the file's "
                "two labels (e.g. --classes 0,1 for labels 0 and 1).")
        try:
            est.partial_fit(X, y, classes=labels)
        except ValueError as exc:  # a bad row named by its place in the chunk: in the file
            raise _in_file(exc, X, seen, shuffle_buffer) from None
        seen += X.shape[0]
    _check_both_classes(est, path, seen)
    return path.name, seen, zero_based


def _in_file(exc: ValueError, X, seen: int, shuffle_buffer: int) -> ValueError:
    """``exc`` of the chunk ``X``, where it is the refusal of a non-finite row, with that row
    counted from the file's first data row (``seen`` rows before the chunk), or said to be
    counted in a shuffled chunk; any other error as it is."""
    from ..algorithms._data import as_rows, first_non_finite_row, non_finite_message

    rows = as_rows(X)
    bad = first_non_finite_row(rows)
    if bad < 0 or str(exc) != non_finite_message(rows, bad):
        return exc
    where = (f"first in data row {seen + bad}, counted from 0" if not shuffle_buffer else
             f"first in row {bad} of a chunk of rows shuffled through a buffer of "
             f"{shuffle_buffer} lines; --shuffle-buffer 0 names its row in the file")
    return ValueError(non_finite_message(rows, bad, where))


def _check_both_classes(est, path, seen: int) -> None:
    """Refuse to save a streamed model that has not seen rows of both classes."""
    if not seen:
        raise ValueError(f"{path} holds no data rows; nothing to fit (no model saved).")
    from .._api import picked

    est = picked(est)  # auto: the estimator it chose
    counts = est._state["data_count"]  # total weight per class: negative, positive
    missing = [est.classes_[c] for c in (0, 1) if not counts[c] > 0]
    if missing:
        raise ValueError(
            f"{path}: the {seen} rows streamed hold no row of class "
            f"{', '.join(repr(m.item()) for m in missing)} (--classes "
            f"{','.join(str(c.item()) for c in est.classes_)}): AUC needs both classes, so no "
            "model was saved. Check --classes against the file's labels.")
