"""Shared fixtures: small real and synthetic data sets (no network, no ../shared)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import settings

import aucopt
from aucopt.algorithms import get_algorithm
from aucopt.datasets import load, make_auc_problem, make_preprocessor

# property tests draw the same examples on every run: CI must not turn red by luck
settings.register_profile("aucopt", derandomize=True, print_blob=True)
settings.load_profile("aucopt")

ALGORITHMS = aucopt.list_algorithms()
STREAMING = [a for a in ALGORITHMS if get_algorithm(a).streaming]


@pytest.fixture(scope="session")
def german():
    """Bundled german.numer scaled to [-1, 1] (dense), labels in {-1, +1}."""
    X, y = load("german.numer")
    return make_preprocessor("minmax").fit_transform(X), y


@pytest.fixture(scope="session")
def german_raw():
    """Bundled german.numer, unscaled."""
    return load("german.numer")


@pytest.fixture(scope="session")
def easy_problem():
    """A separable-ish synthetic problem: 600 x 8, 30% positives."""
    return make_auc_problem(600, 8, pos_rate=0.3, separation=2.5, random_state=0)


@pytest.fixture(params=["dense", "csr"])
def as_format(request):
    """Convert X to the parametrised input format."""
    if request.param == "dense":
        return lambda X: np.asarray(X.toarray() if sp.issparse(X) else X)
    return lambda X: sp.csr_matrix(X)


@pytest.fixture
def papers_algorithm(monkeypatch):
    """Make ``precondition=None`` the default of every estimator for one test: the papers'
    algorithms, as the slow NumPy transcriptions in tests/reference/ write them
    (``precondition="auto"`` is tested in tests/test_precondition.py)."""
    from aucopt.linear_model._declared import ESTIMATORS

    for cls in set(ESTIMATORS.values()):
        defaults = cls.__init__.__kwdefaults__
        if defaults and "precondition" in defaults:
            monkeypatch.setitem(defaults, "precondition", None)
