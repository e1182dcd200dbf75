"""The registry-level API and the conventions every estimator must follow."""

import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import aucopt
from aucopt.utils._param_validation import validate_parameter_constraints

from .conftest import ALGORITHMS

INFO_KEYS = {"class", "paper", "family", "streaming", "sparse", "memory", "cost", "grid",
             "quick_grid"}


def test_registry_ids():
    assert {"spam-l2", "spam-net"} <= set(ALGORITHMS)
    assert len(ALGORITHMS) == len(set(ALGORITHMS))


@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
def test_algorithm_info(algorithm_id):
    info = aucopt.algorithm_info(algorithm_id)
    assert INFO_KEYS <= set(info)
    assert isinstance(aucopt.make(algorithm_id), info["class"])
    size = int(np.prod([len(v) for v in info["quick_grid"].values()]))
    assert 1 <= size <= 9
    defaults = info["defaults"]
    for grid in (info["grid"], info["quick_grid"]):
        assert set(grid) <= set(defaults), "grid names must be estimator parameters"
        for name, values in grid.items():  # every grid value is a valid parameter value
            for value in values:
                validate_parameter_constraints(info["class"]._parameter_constraints,
                                               {name: value}, info["class"].__name__)


@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
def test_every_parameter_is_constrained_and_documented(algorithm_id):
    cls = aucopt.estimator_class(algorithm_id)
    signature = inspect.signature(cls)
    params = {n: p.default for n, p in signature.parameters.items()}
    assert all(p.kind is p.KEYWORD_ONLY for p in signature.parameters.values())
    assert set(params) == set(cls._parameter_constraints)
    validate_parameter_constraints(cls._parameter_constraints, params, cls.__name__)
    doc = inspect.getdoc(cls)
    section = doc.split("Parameters\n----------\n")[1].split("\n\nAttributes")[0]
    documented = re.findall(r"^(\w+) :", section, flags=re.M)
    assert documented == list(params), "Parameters section must follow the signature"
    for heading in ("References", "Examples", "Notes"):
        assert heading in doc


DECLARED = [a for a in ALGORITHMS if aucopt.algorithms.get_algorithm(a).params]


@pytest.mark.parametrize("algorithm_id", DECLARED)
def test_signature_mirrors_the_declarations(algorithm_id):
    """The explicit __init__ lists the declared names, in order, with the declared defaults."""
    spec = aucopt.algorithms.get_algorithm(algorithm_id)
    cls = aucopt.estimator_class(algorithm_id)
    signature = inspect.signature(cls).parameters
    assert list(signature) == [p.name for p in spec.params]
    for p in spec.params:
        assert signature[p.name].default == p.default, p.name
        assert cls._parameter_constraints[p.name] == list(p.constraints)
    assert cls().get_params(deep=False) == {p.name: p.default for p in spec.params}


@pytest.mark.parametrize("algorithm_id", DECLARED)
def test_kernel_scalars_come_from_the_declarations(algorithm_id):
    """Every declared kernel field reaches the kernel's tuple, converted from the value."""
    spec = aucopt.algorithms.get_algorithm(algorithm_id)
    hyper = importlib.import_module(spec.run.__module__).hyper
    values = {p.name: p.default for p in spec.params}
    tup = hyper(values)
    assert hyper(values) is tup, "the same dict of values gives the cached tuple"
    for p in spec.params:
        if p.kernel is None:
            continue
        converted = p.kernel(p.default)
        got = tuple(getattr(tup, f) for f in p.kernel_fields)
        # assert_equal: NaN equals NaN (a default the spec resolves from the data first)
        np.testing.assert_equal(got, converted if len(p.kernel_fields) > 1 else (converted,),
                                err_msg=p.name)
    np.testing.assert_equal(tuple(hyper(dict(values))), tuple(tup))
    # every kernel scalar is read somewhere (a kernel or a spec): none is declared for nothing
    root = Path(aucopt.__file__).parent
    source = "\n".join(p.read_text() for d in ("_kernels", "algorithms")
                       for p in (root / d).glob("*.py"))
    for field in type(tup)._fields:
        read = re.search(rf"\.{field}\b", source) or (
            field.startswith("auto_") and 'f"auto_{' in source)
        assert read, f"kernel scalar {field!r} of {algorithm_id} is never read"


def test_make_returns_fresh_unfitted_estimators():
    a, b = aucopt.make("spam-l2", beta=0.1), aucopt.make("spam-l2", beta=0.1)
    assert a is not b and a.get_params() == b.get_params() and a.beta == 0.1
    assert not hasattr(a, "coef_")


def test_version():
    assert re.match(r"^\d+\.\d+\.\d+", aucopt.__version__)


@pytest.mark.parametrize("algorithm_id", aucopt.list_algorithms())
def test_estimator_is_exported_from_its_public_package(algorithm_id):
    cls = aucopt.estimator_class(algorithm_id)
    name = cls.__name__
    public = importlib.import_module(cls.__module__.rsplit("._", 1)[0])
    assert getattr(public, name, None) is cls
    assert name in public.__all__


def test_subclasses_add_or_fix_hyperparameters_as_in_scikit_learn():
    """The scikit-learn pattern of subclassing: each __init__ stored the arguments named
    by the subclass's signature from its own locals, so a subclass adding a
    hyperparameter got KeyError in __init__, one fixing some got KeyError in fit."""
    from sklearn.base import clone

    from aucopt.datasets import make_auc_problem
    from aucopt.linear_model import SPAML2Classifier

    class WithThreshold(SPAML2Classifier):
        def __init__(self, *, threshold=0.0, beta=1e-4, random_state=None):
            super().__init__(beta=beta, random_state=random_state)
            self.threshold = threshold

    class ThreePasses(SPAML2Classifier):
        def __init__(self, *, random_state=None):
            super().__init__(max_iter=3, random_state=random_state)

    X, y = make_auc_problem(200, 5, random_state=0)
    added = clone(WithThreshold(threshold=0.5, random_state=0)).fit(X, y)
    assert added.get_params() == {"beta": 1e-4, "random_state": 0, "threshold": 0.5}
    base = SPAML2Classifier(random_state=0).fit(X, y)
    assert np.array_equal(added.decision_function(X), base.decision_function(X))
    fixed = clone(ThreePasses(random_state=0)).fit(X, y)
    assert fixed.n_iter_ == 3 and "max_iter" not in fixed.get_params()
    assert np.array_equal(fixed.coef_, SPAML2Classifier(max_iter=3, random_state=0).fit(X, y).coef_)


def test_score_takes_a_column_of_labels_as_fit_does():
    """fit takes y of shape (n, 1) with scikit-learn's DataConversionWarning; score refused
    it, so cross_val_score and GridSearchCV with the default scoring gave NaN."""
    from sklearn.exceptions import DataConversionWarning
    from sklearn.model_selection import cross_val_score

    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(300, 5, random_state=0)
    column = y.reshape(-1, 1)
    model = aucopt.make("spam-l2", random_state=0)
    with pytest.warns(DataConversionWarning):
        model.fit(X, column)
    with pytest.warns(DataConversionWarning):
        assert model.score(X, column) == model.score(X, y)
    with pytest.warns(DataConversionWarning):
        assert np.isfinite(cross_val_score(aucopt.make("spam-l2", random_state=0), X,
                                           column, cv=3)).all()
    with pytest.raises(ValueError, match="1d array"):
        model.score(X, np.c_[y, y])
