"""Resolve a DATA argument: a registered dataset name or a LIBSVM/CSV file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp


def load_data(source: str, n_features: int | None = None,
              label_column: str | None = None, zero_based: bool | None = None):
    """Return ``(X, y, name, zero_based, features)`` for a dataset name or a file path.

    Parameters
    ----------
    source : str
        A name from ``aucopt datasets list`` (bundled, cached, mirrored or
        downloaded), a LIBSVM file (optionally .bz2/.gz/.xz) or a comma-separated
        CSV file (see :func:`read_csv`).
    n_features : int, optional
        Width of a model the data is for: a LIBSVM file whose highest feature
        index is lower is read with this width (its missing columns are zero).
    label_column : str, optional
        CSV files only: the label column's header name or 0-based index (a
        negative index counts from the end); default the last column.
    zero_based : bool, optional
        LIBSVM files only: whether feature indices start at 0. None: as
        :func:`sklearn.datasets.load_svmlight_file` decides (zero-based if the file
        holds an index 0), which a model's test file must not do on its own: a test
        file that happens to lack index 0 would be read shifted by one column.

    Returns
    -------
    tuple
        ``zero_based`` is the base a LIBSVM file was read with (None for other data);
        ``features`` the feature names of a CSV header (None without one, or other data).
    """
    from ..datasets import dataset_info, fetch, list_datasets

    path = Path(source)
    refuse_missing(source, {info.name for info in list_datasets()})
    if path.exists():
        if path.suffix.lower() == ".csv":
            X, y, features = read_csv(path, label_column, with_names=True)
            return X, y, path.name, None, features
        if label_column is not None:
            raise ValueError("--label-column is for CSV files; LIBSVM files carry the label "
                             "first on every line.")
        X, y, zero_based = read_libsvm(path, zero_based)
        if n_features is not None and X.shape[1] < n_features:  # pad: no copy of the values
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
        return X, y, path.name, zero_based, None
    if label_column is not None:
        raise ValueError(f"--label-column is for CSV files; {source} is a registered dataset.")
    dataset_info(source)  # raises a helpful error for unknown names
    X, y = fetch(source)
    return X, y, source, None, None


def columns_by_name(X, features, fitted, name: str):
    """Return ``X`` with its columns in the order of the model's feature names ``fitted``
    when a CSV header named them (``features``): columns in another order are put in the
    model's, other names are refused (ValueError); without names on either side, ``X``."""
    if fitted is None or features is None:
        return X
    fitted = [str(f) for f in fitted]
    if list(features) == fitted:
        return X
    if sorted(features) != sorted(fitted) or len(set(features)) != len(features):
        missing = [f for f in fitted if f not in features]
        strange = [f for f in features if f not in fitted]
        raise ValueError(f"{name}: its feature columns are not the model's by name (the "
                         f"model's not in it: {missing[:5]}; not the model's: {strange[:5]}); "
                         "give the columns the model was fitted with.")
    where = {f: k for k, f in enumerate(features)}
    return X[:, [where[f] for f in fitted]]


def read_libsvm(path: Path, zero_based: bool | None = None):
    """Return ``(X, y, zero_based)`` of a LIBSVM file read with the index base ``zero_based``
    (None: zero-based if the file holds an index 0, as scikit-learn's ``"auto"``)."""
    from sklearn.datasets import load_svmlight_file

    from ..datasets._fetch import _open

    try:  # the indices as written, to see the base (.xz and upper-case suffixes too)
        with _open(path) as fh:
            X, y = load_svmlight_file(fh, zero_based=True)
    except (ValueError, OverflowError, EOFError, OSError) as exc:  # name the file, and the
        from ..datasets import iter_svmlight  # line where iter_svmlight can

        try:
            for _ in iter_svmlight(path, chunk_size=10_000):
                pass
        except OverflowError:  # (its own message names no file)
            pass
        hint = ("; a CSV file needs the .csv suffix" if isinstance(exc, ValueError) else
                "; a feature index may exceed 2^31 - 1" if isinstance(exc, OverflowError) else "")
        raise ValueError(f"{path.name} is not a valid LIBSVM file ({type(exc).__name__}: "
                         f"{exc}){hint}.") from None
    if X.shape[0] == 0:
        raise ValueError(f"{path.name} holds no data rows.")
    has_zero = X.nnz > 0 and int(X.indices.min()) == 0
    if zero_based is None:
        zero_based = has_zero or X.nnz == 0
    elif not zero_based and has_zero:
        row = int(np.searchsorted(X.indptr, np.flatnonzero(X.indices == 0)[0], side="right"))
        raise ValueError(
            f"{path.name} uses feature index 0 (data line {row}) but is read one-based (the "
            "model's training file held no index 0, or --one-based was given). If the files "
            "count features from 0, give --zero-based (to fit, and to evaluate).")
    if not zero_based:  # one-based: column j holds index j + 1
        X = sp.csr_matrix((X.data, X.indices - 1, X.indptr),
                          shape=(X.shape[0], max(X.shape[1] - 1, 0)))
    return X, y, bool(zero_based)


def refuse_missing(source: str, registered: set) -> None:
    """Refuse a DATA argument that names a directory, or looks like a file path (a separator
    or a file suffix) and is neither a file nor one of the ``registered`` dataset names."""
    path = Path(source)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory: DATA is a dataset name from 'aucopt "
                                "datasets list' or the path of a file.")
    if source not in registered and not path.exists() and _looks_like_a_path(source):
        raise FileNotFoundError(
            f"no such file: {path} (DATA is a dataset name from 'aucopt datasets list' or the "
            "path of a file).")


_FILE_SUFFIXES = (".csv", ".svm", ".libsvm", ".txt", ".dat", ".bz2", ".gz", ".xz")


def _looks_like_a_path(source: str) -> bool:
    """Whether ``source`` names a file rather than a dataset (a separator or a file suffix)."""
    return any(sep in source for sep in ("/", "\\")) or source.lower().endswith(_FILE_SUFFIXES)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# cells that mark a missing value: not a header's text (a row holding one is data, refused)
_MISSING = {"na", "n/a", "nan", "null", "none", "?", "-"}


def _text(cell: str) -> bool:
    """Whether ``cell`` is text that names a column: not empty, not a number, not a mark."""
    return bool(cell) and not _number(cell) and cell.lower() not in _MISSING


def read_csv(path, label_column: str | int | None = None, *, with_names: bool = False):
    """Read a comma-separated file of numeric features and one label column.

    The first line is a header when a field outside the label column is text: not empty,
    not a number, not a missing-value mark (``NA``...; a first row with a missing value is
    data, refused as such, not a header that drops it).
    The label column is ``label_column`` (a header name, or a 0-based index, negative from
    the end), by default the last one. Labels are numbers, booleans (``true``/``false``,
    any case) or strings, with exactly two distinct values, kept as they are: the
    estimators order them as :func:`numpy.unique` does and take the second (the larger
    number, ``True``, or the later string in sorted order) as the positive class.

    Parameters
    ----------
    path : str or Path
    label_column : str or int, optional
    with_names : bool, default=False
        Also return the header's feature names (None without a header).

    Returns
    -------
    X : ndarray of shape (n, d), float64
    y : ndarray of shape (n,)
        float64, bool or str.
    features : list of str or None
        With ``with_names`` only.

    Raises
    ------
    ValueError
        With one sentence saying what is wrong: an empty file, a header without rows, a
        single column (often another separator), rows of different lengths, a feature
        that is not a number, an unknown label column, or not two label values.
    """
    import csv

    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            rows = [[f.strip() for f in row] for row in csv.reader(fh)
                    if any(f.strip() for f in row)]
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
                         f"offset {exc.start}); save it as UTF-8.") from None
    if not rows:
        raise ValueError(f"{path.name} is empty: a CSV needs feature columns and a label column.")
    width = len(rows[0])
    if width < 2:
        other = next((sep for sep in (";", "\t", "|", " ") if sep in rows[0][0]), None)
        hint = (f" The first line contains {other!r}: aucopt reads comma-separated files; "
                "convert the separator to ','." if other else "")
        raise ValueError(f"{path.name} has one column; a CSV needs at least one feature "
                         f"column and a label column, separated by commas.{hint}")
    for number, row in enumerate(rows[1:], 2):
        if len(row) != width:
            raise ValueError(f"{path.name}: line {number} has {len(row)} fields, the first "
                             f"line {width}; every line needs the same columns.")
    label = _label_index(path.name, rows[0], label_column, width)
    header = None
    if isinstance(label_column, str) and not _is_int(label_column) or any(
            _text(f) for k, f in enumerate(rows[0]) if k != label):
        header, rows = rows[0], rows[1:]
    if not rows:
        raise ValueError(f"{path.name} has a header line but no data rows.")
    features = [k for k in range(width) if k != label]
    try:
        X = np.array([[float(row[k]) for k in features] for row in rows], dtype=np.float64)
    except ValueError:
        line, column = next((n, k) for n, row in enumerate(rows, 2 if header else 1)
                            for k in features if not _number(row[k]))
        name = f"{header[column]!r}" if header else f"{column}"
        value = rows[line - (2 if header else 1)][column]
        if not value.strip():  # a missing value
            raise ValueError(f"{path.name}: line {line}, column {name} is empty (a missing "
                             "value); fill or drop the missing values first (e.g. pandas' "
                             "fillna, or scikit-learn's SimpleImputer in Python).") from None
        raise ValueError(f"{path.name}: line {line}, column {name} is not a number "
                         f"({value!r}); features must be "
                         "numeric (is the label column another one? --label-column)."
                         ) from None
    y = _labels([row[label] for row in rows])
    values = np.unique(y)
    if values.size != 2:
        name = f"{header[label]!r}" if header else f"{label}"
        shown = ", ".join(map(str, values[:5])) + (", ..." if values.size > 5 else "")
        raise ValueError(f"{path.name}: the label column ({name}) has {values.size} distinct "
                         f"value(s) ({shown}); it must have exactly two. Choose the label "
                         "column with --label-column NAME|INDEX.")
    if with_names:
        return X, y, None if header is None else [header[k] for k in features]
    return X, y


def _is_int(text) -> bool:
    try:
        int(text)
    except (TypeError, ValueError):
        return False
    return True


def _label_index(name, first, label_column, width) -> int:
    """The 0-based index of the label column from a name of the first line or an index."""
    if label_column is None:
        return width - 1
    if _is_int(label_column):
        k = int(label_column)
        if not -width <= k < width:
            raise ValueError(f"--label-column {k} is outside the {width} columns of {name} "
                             f"(0 to {width - 1}, or -1 to -{width} from the end).")
        return k % width
    if label_column not in first:
        raise ValueError(f"{name} has no column {label_column!r}; its first line is "
                         f"{', '.join(first)}.")
    return first.index(label_column)


def _labels(raw: list[str]):
    """Labels as numbers when all are, as booleans when all are true/false, else strings."""
    if all(_number(v) for v in raw):
        return np.array([float(v) for v in raw])
    lowered = [v.lower() for v in raw]
    if set(lowered) <= {"true", "false"}:
        return np.array([v == "true" for v in lowered])
    return np.array(raw, dtype=str)


#: Features count as unscaled when one column's largest absolute value is this many times
#: the median column's, or when any value exceeds :data:`_LARGE`.
_SPREAD, _LARGE = 10.0, 100.0


def unscaled_features(X) -> str | None:
    """Describe why the columns of ``X`` look unscaled, or return None when they look scaled.

    First-order AUC learners step by the scale of the rows (e.g. SPAM and SOLAM bound
    their steps with ``max ||x||``), so one column much wider than the others makes every
    step small for the rest: the fit stops far from the optimum.
    """
    if sp.issparse(X):
        widths = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        widths = np.nanmax(np.abs(np.asarray(X, dtype=float)), axis=0) if len(X) else []
    widths = np.asarray(widths, dtype=float)
    widths = widths[np.isfinite(widths) & (widths > 0)]
    if widths.size == 0:
        return None
    top, median = float(widths.max()), float(np.median(widths))
    if top > _LARGE or top > _SPREAD * median:
        return (f"the features are not scaled (the widest column reaches |x| = {top:g}, the "
                f"median column {median:g})")
    return None
