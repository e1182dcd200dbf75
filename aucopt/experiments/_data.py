"""The data of an experiment's dataset rows: fetched (mirror, cache, network) or smoke stand-ins.

Smoke mode never uses the network or a mirror: the bundled german.numer on
``SMOKE_ROWS`` stratified rows where a config lists it, and a synthetic stand-in
(``make_auc_problem`` of the dataset's sparsity) for the others; every
substitution is described in ``_Data.source``.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..datasets import binarize, dataset_info, fetch, load, make_auc_problem
from ..model_selection import make_splits

__all__ = ["SMOKE_ROWS", "load_data", "outer_splits", "data_record"]

SMOKE_ROWS = 300
SMOKE_MAX_FEATURES = 20


@dataclass
class _Data:
    name: str
    X: object = None
    y: np.ndarray | None = None
    source: str = ""
    n_train: int | None = None
    substituted: bool = False
    binarize: str | None = None
    positive_classes: list = field(default_factory=list)
    error: str = ""


def _subsample(X, y, n, seed):
    if len(y) <= n:
        return X, y
    from sklearn.model_selection import train_test_split

    idx, _ = train_test_split(np.arange(len(y)), train_size=n, stratify=y, random_state=seed)
    idx = np.sort(idx)
    return X[idx], y[idx]


def _smoke_data(entry, config) -> _Data:
    info = dataset_info(entry.name)
    if info.bundled:
        X, y = load(info.name)
        X, y = _subsample(X, y, SMOKE_ROWS, config.protocol.seed)
        source = f"bundled {info.name}, {SMOKE_ROWS} stratified rows (smoke)"
        substituted = False
    else:
        seed = zlib.crc32(info.name.encode())
        X, y = make_auc_problem(SMOKE_ROWS, min(info.n_features, SMOKE_MAX_FEATURES),
                                pos_rate=0.3, separation=1.5,
                                sparsity=0.7 if info.sparse else 0.0,
                                sparse_output=info.sparse, random_state=seed)
        source = (f"SYNTHETIC stand-in for {info.name} (smoke mode uses no network or mirror): "
                  f"make_auc_problem({SMOKE_ROWS}, {X.shape[1]}, sparse={info.sparse}, "
                  f"random_state={seed})")
        substituted = True
    data = _Data(entry.name, X, np.asarray(y), source, substituted=substituted)
    if entry.test_set is not None:  # exercise the given-test protocol on the stand-in
        data.n_train = 2 * SMOKE_ROWS // 3
        data.source += f"; rows {data.n_train}: stand in for the official test set"
    return data


def load_data(entry, config, options) -> _Data:
    """The data of a dataset row: a smoke stand-in, or fetched (``error`` set on failure)."""
    return _smoke_data(entry, config) if options.smoke else _fetch_data(entry, config, options)


def outer_splits(entry, data: _Data, protocol) -> list:
    """The outer splits of a dataset (``given-test`` when it has an official test set)."""
    return make_splits(protocol.kind if entry.test_set is None else "given-test", data.y,
                       folds=protocol.folds, repeats=protocol.repeats,
                       test_size=protocol.test_size, ratios=protocol.ratios,
                       n_train=data.n_train, random_state=protocol.seed)


def _fetch_data(entry, config, options) -> _Data:
    try:
        X, y = fetch(entry.name, download=options.download)
        n_train = None
        source = _describe_source(entry.name)
        if entry.test_set is not None:
            try:
                X_test, y_test = fetch(entry.test_set, download=options.download)
            except ValueError as exc:
                raise ValueError(f"official test set {entry.test_set!r}: {exc}") from exc
            X, X_test = _align_features(X, X_test)
            n_train = X.shape[0]
            X = (sp.vstack([X, X_test], format="csr") if sp.issparse(X)
                 else np.vstack([X, X_test]))
            y = np.concatenate([y, y_test])
            source += f" + test set {entry.test_set} ({len(y_test)} rows)"
    except (OSError, ValueError, KeyError) as exc:
        return _Data(entry.name, error=f"{type(exc).__name__}: {exc}")
    data = _Data(entry.name, X, np.asarray(y), source, n_train=n_train)
    classes = np.unique(data.y)
    if entry.binarize is not None and classes.size > 2:
        seed = config.protocol.binarize_seed
        data.y = binarize(data.y, entry.binarize, random_state=seed)
        data.binarize = f"{entry.binarize} (seed {seed})"
        data.positive_classes = sorted(np.unique(y[data.y == 1]).tolist())
    elif classes.size != 2:
        return _Data(entry.name, error=f"{classes.size} classes and no binarisation scheme in "
                                       f"the config")
    return data


def _align_features(A, B):
    d = max(A.shape[1], B.shape[1])

    def pad(M):
        if M.shape[1] == d:
            return M
        if sp.issparse(M):
            return sp.csr_matrix((M.data, M.indices, M.indptr), shape=(M.shape[0], d))
        return np.hstack([M, np.zeros((M.shape[0], d - M.shape[1]))])

    return pad(A), pad(B)


def _describe_source(name: str) -> str:
    info = dataset_info(name)
    if info.bundled:
        return f"bundled {info.name}"
    mirror = os.environ.get("AUCOPT_DATA_MIRROR")
    # the variable is named, not its value: reports must not carry a machine's paths
    return f"fetch({info.name!r})" + (" from AUCOPT_DATA_MIRROR" if mirror else "")


def data_record(entry, data: _Data) -> dict:
    """The manifest record of a dataset row (source, size, sparsity, binarisation)."""
    rec = {"label": entry.label, "preprocessing": entry.preprocessing, "source": data.source,
           "substituted": data.substituted}
    if data.error:
        rec["unavailable"] = data.error
        return rec
    rec.update(n_samples=int(data.X.shape[0]), n_features=int(data.X.shape[1]),
               sparse=bool(sp.issparse(data.X)), positive_rate=float(np.mean(data.y == 1)),
               n_train_given=data.n_train)
    if data.binarize:
        rec.update(binarize=data.binarize, positive_classes=data.positive_classes)
    return rec
