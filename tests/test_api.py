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
