"""Issue #5: the kernel learners beat every linear learner on non-linear problems."""

import pytest

import aucopt
from aucopt.datasets import make_nonlinear_problem

LINEAR = [a for a in aucopt.list_algorithms() if aucopt.algorithm_info(a)["linear"]]
KERNEL = [a for a in aucopt.list_algorithms() if not aucopt.algorithm_info(a)["linear"]]


def test_the_registry_has_both_kinds():
    assert {"aogd", "projection-pp", "sparse-kernel"} <= set(KERNEL)
    assert {"spam-l2", "opauc", "oam-seq", "kar"} <= set(LINEAR)


@pytest.mark.parametrize("kind", ["xor", "circles"])
def test_every_linear_learner_stays_near_chance_and_every_kernel_learner_does_not(kind):
    X, y = make_nonlinear_problem(1500, kind, random_state=0)
    X_test, y_test = make_nonlinear_problem(3000, kind, random_state=1)
    linear = {a: aucopt.make(a, random_state=0).fit(X, y).score(X_test, y_test)
              for a in LINEAR}
    kernel = {a: aucopt.make(a, random_state=0).fit(X, y).score(X_test, y_test)
              for a in KERNEL}
    assert max(linear.values()) < 0.6, linear
    assert min(kernel.values()) >= 0.95, kernel
    assert min(kernel.values()) > max(linear.values()) + 0.3
