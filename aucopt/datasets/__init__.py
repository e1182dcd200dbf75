"""Datasets: bundled data, the registry of the papers' datasets, fetching, preprocessing.

``load("german.numer")`` needs no network. ``fetch(name)`` reads the cache
(``$AUCOPT_DATA``, default ``~/.cache/aucopt``), a mirror directory
(``$AUCOPT_DATA_MIRROR``) or the official address, and verifies the file.
``list_datasets()`` is the registry: every dataset of the five papers, with its
address, size, positive class and the experiment tables that use it.
"""

from ._drift import make_drift_stream
from ._fetch import (
    DatasetDownloadError,
    DatasetIntegrityError,
    DatasetNotAvailableError,
    fetch,
    get_data_home,
    load,
)
from ._preprocessing import (
    BINARIZATION_SCHEMES,
    PREPROCESSING_SCHEMES,
    binarize,
    make_preprocessor,
    preprocess,
)
from ._registry import CONFIG_IDS, DatasetInfo, dataset_info, list_datasets, register_dataset
from ._stream import iter_svmlight
from ._synthetic import make_auc_problem, make_nonlinear_problem

__all__ = [
    "BINARIZATION_SCHEMES",
    "CONFIG_IDS",
    "DatasetDownloadError",
    "DatasetInfo",
    "DatasetIntegrityError",
    "DatasetNotAvailableError",
    "PREPROCESSING_SCHEMES",
    "binarize",
    "dataset_info",
    "fetch",
    "get_data_home",
    "iter_svmlight",
    "list_datasets",
    "load",
    "make_auc_problem",
    "make_drift_stream",
    "make_nonlinear_problem",
    "make_preprocessor",
    "preprocess",
    "register_dataset",
]
