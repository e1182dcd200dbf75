"""Every specialised kernel gives what its generic twin gives (aucopt._kernels._twins).

Each registered algorithm is fitted, and continued with ``partial_fit``, on dense and on
CSR data, once as it runs normally and once with its specialised kernels turned off
(:func:`aucopt.algorithms._fast.generic_kernels`); the two models must agree. A last
test checks that every declared twin was run by some algorithm here, so a new twin
cannot escape the comparison.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
from aucopt._kernels._twins import SPECIALISED
from aucopt.algorithms._fast import REQUESTED, generic_kernels
from aucopt.datasets import make_auc_problem

from .conftest import ALGORITHMS

RTOL = 1e-8  # lazy forms round differently from the plain ones (scales, running sums)


def _data(fmt):
    X, y = make_auc_problem(240, 12, separation=1.5, random_state=3)
    X[np.abs(X) < 0.6] = 0.0  # a sparse pattern for the CSR twins
    return (sp.csr_matrix(X) if fmt == "csr" else X), y


def _scores(algorithm_id, X, y):
    est = aucopt.make(algorithm_id)
    params = est.get_params()
    if "random_state" in params:
        est.set_params(random_state=0)
    if "max_iter" in params:
        est.set_params(max_iter=2)
    est.fit(X[:160], y[:160])
    if aucopt.algorithm_info(algorithm_id)["streaming"]:
        est.partial_fit(X[160:], y[160:])
    return est.decision_function(X)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
def test_specialised_kernels_agree_with_their_generic_twins(algorithm_id, fmt):
    if fmt == "csr" and not aucopt.algorithm_info(algorithm_id)["sparse"]:
        pytest.skip("dense input only")
    X, y = _data(fmt)
    fast = _scores(algorithm_id, X, y)
    with generic_kernels():
        generic = _scores(algorithm_id, X, y)
    np.testing.assert_allclose(fast, generic, rtol=RTOL, atol=1e-10 * np.abs(generic).max())


def test_every_declared_twin_was_compared():
    for algorithm_id in ALGORITHMS:  # run them here too, so the test does not depend on order
        for fmt in ("dense", "csr"):
            if fmt == "dense" or aucopt.algorithm_info(algorithm_id)["sparse"]:
                _scores(algorithm_id, *_data(fmt))
    missing = [k.__name__ for k in SPECIALISED if k not in REQUESTED]
    assert not missing, f"specialised kernels no algorithm ran: {missing}"
    assert SPECIALISED, "the twin registry is empty"
