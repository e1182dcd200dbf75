"""The estimators' hyperparameters, derived from their spec's declarations.

Each hyperparameter is declared once, beside its algorithm's spec
(:mod:`aucopt.algorithms._params`). An estimator class names its registry id; this
mixin then derives its ``_parameter_constraints`` and the *Parameters* section of its
docstring from the declarations, checks the values at every ``fit``/``partial_fit``,
and hands one dict of values to the spec while they are unchanged (so that the
kernel scalars built from it are cached).
"""

from __future__ import annotations

import importlib
import textwrap
from numbers import Integral

from sklearn.utils.validation import check_is_fitted

from ..algorithms import get_algorithm
from ..algorithms._params import constraints_of, document, structural_names
from ..utils._param_validation import Interval, validate_parameter_constraints

__all__ = ["DeclaredParams", "ESTIMATORS", "READ_WITH", "registered_class"]

ESTIMATORS: dict = {}  # registry id -> the estimator class that names it (filled on import)
# The packages whose classes fill ESTIMATORS when imported; the kernel estimators build on
# the linear ones, so they are imported by name when an id is not found (registered_class).
_PACKAGES = ("aucopt.linear_model", "aucopt.kernel_model")
# the attribute holding the hyperparameters of the update that committed the state
READ_WITH = "_read_with"

_PARAMETERS = "    {parameters}"  # the docstring line replaced by the declared parameters
_ATTRIBUTES = "    {attributes}"  # ... by the attributes every estimator has (not documented above)
_EXAMPLE = "    {example}"  # ... by the standard example (fit on an easy problem, score)

# The attributes of every estimator, in numpydoc form; an estimator documents its own
# version of one above the ``{attributes}`` line where its meaning differs.
_STANDARD_ATTRIBUTES = (
    ("coef_", "ndarray of shape (1, n_features)", "Scoring vector :math:`w`."),
    ("intercept_", "ndarray of shape (1,)",
     "``-(w.m+ + w.m-)/2`` from the class means of the training data."),
    ("classes_", "ndarray of shape (2,)", "Labels; ``classes_[1]`` is the positive class."),
    ("n_features_in_", "int", "Number of features of the training data."),
    ("feature_names_in_", "ndarray of str", "Only when ``X`` had string column names."),
    ("n_iter_", "int", "Passes run by the last call."),
    ("t_", "int", "Number of updates so far."),
)


def registered_class(algorithm: str) -> type | None:
    """Return the estimator class of the registry id ``algorithm`` (None: it has none),
    whatever was imported before: the result never depends on import order."""
    for package in _PACKAGES:
        if algorithm in ESTIMATORS:
            break
        importlib.import_module(package)
    return ESTIMATORS.get(algorithm)


class DeclaredParams:
    """Mixin of :class:`~aucopt.linear_model._base.BaseAUCClassifier`: hyperparameters.

    A subclass that sets ``_algorithm`` (a registry id) is that id's estimator
    (``ESTIMATORS``, read by :func:`aucopt.estimator_class`); the spec does not name it.
    """

    _algorithm: str = ""
    _example_params: str = "random_state=0"  # arguments of the standard example's estimator

    _parameter_constraints: dict = {
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": [Interval(Integral, 0, None, closed="left"), "boolean"],
    }

    def __init_subclass__(cls, **kwargs):
        """Derive the constraints and the documented parameters from the spec's declarations.

        A subclass naming a registry id whose spec declares its hyperparameters
        (``AlgorithmSpec.params``) gets ``_parameter_constraints`` from them, and the
        line ``{parameters}`` of its docstring is replaced by their numpydoc entries.
        """
        super().__init_subclass__(**kwargs)
        algorithm = cls.__dict__.get("_algorithm")
        if not algorithm:
            return
        if ESTIMATORS.setdefault(algorithm, cls) is not cls:
            raise TypeError(f"{algorithm!r} already has an estimator: "
                            f"{ESTIMATORS[algorithm].__name__}")
        declared = get_algorithm(algorithm).params
        if not declared:
            return
        cls._parameter_constraints = constraints_of(declared)
        doc = cls.__doc__ or ""
        doc = doc.replace(_PARAMETERS, document(declared))
        doc = doc.replace(_ATTRIBUTES, _attributes(cls, doc))
        cls.__doc__ = doc.replace(_EXAMPLE, _example(cls))

    @classmethod
    def _spec(cls):
        return get_algorithm(cls._algorithm)

    @classmethod
    def _param_names(cls) -> tuple:
        """The hyperparameters the algorithm reads: the ``__init__`` signature of the class
        that names its id (a user's subclass may add hyperparameters of its own, or fix
        some of these and pass them on to ``super().__init__``)."""
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            owner = next((c for c in cls.__mro__ if c.__dict__.get("_algorithm")), cls)
            names = tuple(owner._get_param_names())
            cls._param_names_cache = names
        return names

    def _store(self, values: dict) -> None:
        """Store the ``__init__`` arguments unchanged (``values`` is its ``locals()``: the
        arguments of the ``__init__`` that calls, whatever the class of ``self``)."""
        for name, value in values.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    def _params(self) -> dict:
        """Return the hyperparameters as a dict (``get_params(deep=False)`` without its cost).

        The same dict object is returned until a hyperparameter is assigned (``set_params``,
        ``clone``, ``est.name = value``; see :meth:`__setattr__`), so work derived from the
        hyperparameters (their check, the spec's kernel scalars, a stream's row path) is
        cached on its identity. Do not modify it.
        """
        params = self.__dict__.get("_params_cache")
        if params is None:
            params = {name: getattr(self, name) for name in type(self)._param_names()}
            self.__dict__["_params_cache"] = params
        return params

    def __setattr__(self, name, value):
        # assigning a hyperparameter (even the same value) drops the dict _params() returns
        if name in type(self)._param_names():
            self.__dict__.pop("_params_cache", None)
            if "_state" in self.__dict__ and name in self._structural():
                # the values the state was built with, kept from the first change on
                self.__dict__.setdefault("_built_with", self._structure())
        super().__setattr__(name, value)

    @classmethod
    def _structural(cls) -> tuple:
        """Names of the hyperparameters that shape the state (declared ``structural=True``)."""
        names = cls.__dict__.get("_structural_cache")
        if names is None:
            names = structural_names(cls._spec().params) if cls._algorithm else ()
            cls._structural_cache = names
        return names

    def _structure(self) -> dict:
        return {name: getattr(self, name) for name in self._structural()}

    def _state_params(self) -> dict:
        """Return the hyperparameters the committed state is read with (``coef_``, scores):
        those of the update that committed it (``set_params`` since applies to the next
        update, as in scikit-learn, however often the model was read in between; e.g. SPAM's
        ``output``); for a state committed without them (an older pickle), :meth:`_params`
        with the structural values it was built with."""
        fitted = self.__dict__
        read = fitted.get(READ_WITH)
        if read is not None:
            return read
        built = fitted.get("_built_with")
        return self._params() if not built else {**self._params(), **built}

    def _check_structure(self) -> None:
        """Raise ValueError if a structural hyperparameter changed since the state was built.

        ``partial_fit`` (and River's ``learn_one``) continue the committed state, whose
        arrays were sized by those values: continuing with others would index past them.
        """
        built = self.__dict__.get("_built_with")
        if built is None:
            return
        changed = [(name, old, getattr(self, name)) for name, old in built.items()
                   if getattr(self, name) != old]
        if not changed:
            return
        what = ", ".join(f"{name} was changed from {old!r} to {new!r}"
                         for name, old, new in changed)
        back = ", ".join(f"{name}={old!r}" for name, old, _ in changed)
        raise ValueError(
            f"{type(self).__name__}: {what} after the model was trained. These "
            "hyperparameters shape the learner's state, so the stream cannot continue with "
            "them: call fit to restart with the new values (or start a fresh estimator's "
            f"partial_fit), or set_params({back}) to continue the stream. The model is "
            "unchanged."
        )

    def _saved_params(self) -> dict:
        """Return the hyperparameters to save: ``get_params`` with the structural values the
        committed state was built with (a later change, refused by ``partial_fit``, has not
        reached the state)."""
        return {**self.get_params(deep=False), **self.__dict__.get("_built_with", {})}

    def _validate_params(self) -> None:
        """Check the hyperparameters against their constraints; raise InvalidParameterError.

        Run by every ``fit`` and ``partial_fit`` call (``set_params`` or an assignment may
        have changed them since); a call whose hyperparameters equal those last checked
        skips the check, which keeps one-row ``partial_fit`` calls cheap.
        """
        params = self._params()
        if self.__dict__.get("_checked_params") is params:
            return
        validate_parameter_constraints(self._parameter_constraints, params, type(self).__name__)
        check = self._spec().check_params
        if check is not None:
            check(params)
        self._checked_params = params


def _attributes(cls, doc: str) -> str:
    """Return the numpydoc entries of the standard attributes ``doc`` does not document."""
    spec = get_algorithm(cls._algorithm)
    section = doc.split("Attributes\n    ----------\n", 1)[-1].split(_ATTRIBUTES, 1)[0]
    documented = {name.strip() for line in section.splitlines()
                  if line.startswith("    ") and not line.startswith("     ") and " : " in line
                  for name in line.split(" : ", 1)[0].split(",")}
    entries = []
    if spec.calibration is not None and spec.step_param:
        name = spec.step_param
        entries.append((f"{name}_", "float or None",
                        f'The {name} used: the number given, or the one ``"auto"`` calibrated; '
                        "None while ``partial_fit`` waits for a chunk with a usable scale, or when "
                        "a named rule of the parameter sets the step."))
    entries += [e for e in _STANDARD_ATTRIBUTES if e[0] != "coef_" or spec.coef is not None]
    lines = []
    for name, kind, text in entries:
        if name not in documented:
            lines += [f"    {name} : {kind}", *textwrap.wrap(
                text, 88, initial_indent="        ", subsequent_indent="        ")]
    return "\n".join(lines)


def _example(cls) -> str:
    """Return the standard example: fit on an easy problem and score it (run by doctest)."""
    package = cls.__module__.rsplit("._", 1)[0]
    name = cls.__name__
    return "\n".join([
        "    >>> from aucopt.datasets import make_auc_problem",
        f"    >>> from {package} import {name}",
        "    >>> X, y = make_auc_problem(500, 10, separation=2.0, random_state=0)",
        f"    >>> clf = {name}({cls._example_params}).fit(X, y)",
        "    >>> clf.score(X, y) > 0.8",
        "    True",
    ])


def fitted_weight(name: str) -> property:
    """Return the property ``<name>_``: the value of ``name`` the last ``fit`` used.

    It reads ``state[name]``, where the spec stores the number an ``"auto"`` value
    became; 0 there (files saved before the attribute existed, when ``name`` was a
    number) reads the parameter itself.
    """
    def get(self) -> float:
        check_is_fitted(self)
        value = float(self._state[name][0])
        return value if value > 0 else float(getattr(self, name))

    get.__doc__ = (f'The {name} the last ``fit`` used: ``{name}``, or the value ``"auto"`` '
                   "chose.")
    return property(get)
