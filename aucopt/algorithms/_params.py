"""Hyperparameter declarations: each hyperparameter is written once, beside its spec.

A :class:`Param` holds everything the front-ends need to know about one
hyperparameter: its name, default, constraints, numpydoc type and description, and
how its value reaches the kernel. Everything else is derived from the declarations
of a spec (``AlgorithmSpec.params``):

* the estimator's ``_parameter_constraints`` and the *Parameters* section of its
  docstring (:mod:`aucopt.linear_model._base`);
* the named tuple of kernel scalars (:class:`KernelScalars`), built once per set of
  values and cached;
* the checks of :func:`aucopt.make`, the CLI's ``--param``, the experiment configs,
  the River and Dask front-ends and :func:`aucopt.io.load`.

The estimators keep explicit ``__init__`` signatures (scikit-learn reads them);
``tests/test_api.py`` checks that each signature lists the declared names and
defaults in the declared order.
"""

from __future__ import annotations

import collections
import dataclasses
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from ..utils._param_validation import Interval, Options

__all__ = [
    "Param",
    "KernelScalars",
    "auto_step",
    "codes",
    "common",
    "precondition",
    "constraints_of",
    "structural_names",
    "document",
    "POSITIVE",
    "MAX_PASSES",
    "MAX_SIZE",
    "MAX_COUNT",
    "SIZE",
    "COUNT",
    "NON_NEGATIVE",
    "AUTO",
    "SHUFFLE_DRAWS",
]

POSITIVE = Interval(Real, 0, None, closed="neither")

# ``shuffle`` of a solver that does not depend on the rows' order but draws at random
SHUFFLE_DRAWS = ("Whether ``fit`` permutes the rows first. The solver does not depend on their "
                 "order, but the permutation is drawn from the generator of its random draws, "
                 "so the value changes the draws (as another ``random_state`` would).")

# Hard upper bounds of the integer hyperparameters: far beyond any useful value, small
# enough that no counter overflows and that an absurd value fails in the parameter check
# (InvalidParameterError) rather than in an allocation or a loop without end.
MAX_PASSES = 10**6  # max_iter: passes, stages or cutting-plane rounds
MAX_SIZE = 10**7  # sizes of a state: buffers, budgets, ranks, numbers of components
MAX_COUNT = 10**9  # numbers of samples or steps: mini-batches, inner steps per stage
SIZE = Interval(Integral, 1, MAX_SIZE, closed="both")
COUNT = Interval(Integral, 1, MAX_COUNT, closed="both")
NON_NEGATIVE = Interval(Real, 0, None, closed="left")
AUTO = Options(str, {"auto"})


@dataclass(frozen=True)
class Param:
    """The declaration of one hyperparameter.

    Parameters
    ----------
    name : str
        The keyword of the estimator's ``__init__``.
    default : object
        Its default value.
    constraints : sequence
        Accepted values (:mod:`aucopt.utils._param_validation`): a value is valid
        when it satisfies at least one.
    type : str
        The numpydoc type line, e.g. ``'float or "auto"'``.
    doc : str
        The description (reStructuredText; may span lines).
    kernel : callable, str or None, default=None
        How the value reaches the kernel's named tuple of scalars: a function of the
        value (e.g. ``float``), or the result of :func:`auto_step` / :func:`codes`.
        None: the kernel does not see it (the spec or the estimator reads it).
    fields : tuple of str, default=()
        Names of the kernel scalars ``kernel`` returns (a tuple of as many values);
        empty: one scalar named ``name``.
    structural : bool, default=False
        Whether the value shapes the learner's state (a buffer size, a rank, a number of
        components, a budget): a fitted streaming estimator refuses to continue with
        another value (``partial_fit``, River's ``learn_one``: the state was built for the
        old one), and :func:`aucopt.io.save` writes the value the state was built with.
    """

    name: str
    default: Any
    constraints: Sequence
    type: str
    doc: str
    kernel: Callable[[Any], Any] | None = None
    fields: tuple[str, ...] = ()
    structural: bool = False

    def replace(self, **changes) -> Param:
        """Return a copy with ``changes`` (e.g. another default or doc for one algorithm)."""
        return dataclasses.replace(self, **changes)

    @property
    def kernel_fields(self) -> tuple[str, ...]:
        """Names of the kernel scalars this value becomes (empty when the kernel ignores it)."""
        if self.kernel is None:
            return ()
        return self.fields or (self.name,)


def auto_step(name: str, unit: float, doc: str, *, default="auto", rules: tuple = (),
              scaled: bool = True) -> Param:
    """Declare a step size that may be ``"auto"`` (calibrated on the data).

    The kernel receives two scalars: ``<name>`` (``unit`` for ``"auto"``: the scale rule
    ``unit / M^2`` applies until a calibrated value is given) and ``auto_<name>``.

    Parameters
    ----------
    name : str
        Hyperparameter name (``eta``, ``eta0``, ...).
    unit : float
        The constant of the scale rule ``unit / M^2`` used for ``"auto"``.
    doc : str
        The description.
    default : float or "auto", default="auto"
    rules : tuple of str, default=()
        Further accepted names that the kernel treats as ``"auto"`` (its scale rule) but
        that are never calibrated, e.g. VRSPAM's ``"lipschitz"``.
    scaled : bool, default=True
        False for steps that do not depend on the scale of the data (the kernel
        learners' features and kernel values are bounded by 1): the kernel then receives
        the single scalar ``<name>``, ``unit`` until a calibrated value is given.

    Returns
    -------
    Param
    """
    named = ("auto", *rules)

    def convert(value):
        auto = isinstance(value, str) and value in named
        step = unit if auto else float(value)
        return (step, auto) if scaled else step

    quoted = [f'"{r}"' for r in named]
    kind = f"float or {quoted[0]}" if not rules else (
        f"float, {', '.join(quoted[:-1])} or {quoted[-1]}")
    return Param(name, default, (POSITIVE, Options(str, set(named))), kind, doc,
                 kernel=convert, fields=(name, f"auto_{name}") if scaled else ())


def codes(table: dict) -> Callable[[str], int]:
    """Return the conversion of an option name into its kernel integer code."""
    def convert(value):
        return table[value]

    convert.table = table
    return convert


def structural_names(params: Sequence[Param]) -> tuple[str, ...]:
    """Return the names of the declarations that shape the state (``structural=True``)."""
    return tuple(p.name for p in params if p.structural)


def constraints_of(params: Sequence[Param]) -> dict:
    """Return ``{name: [constraint, ...]}`` of the declarations (the estimator's constraints)."""
    return {p.name: list(p.constraints) for p in params}


def document(params: Sequence[Param], indent: str = "    ") -> str:
    """Return the numpydoc *Parameters* entries of the declarations, indented for a class."""
    lines = []
    for p in params:
        default = f'"{p.default}"' if isinstance(p.default, str) else repr(p.default)
        lines.append(f"{indent}{p.name} : {p.type}, default={default}")
        body = textwrap.dedent(p.doc).strip("\n")
        lines.extend(f"{indent}    {line}".rstrip() for line in body.splitlines())
    return "\n".join(lines)


class KernelScalars:
    """Build the kernel's named tuple of scalars from a dict of hyperparameter values.

    The tuple type is a ``collections.namedtuple`` created here with ``module`` set
    to the spec's module; assign it there under ``typename`` (numba's cache pickles
    it by reference). A call with the same dict object as the previous call returns
    the previous tuple (the estimators pass one dict while their values are
    unchanged), which keeps one-row updates cheap.

    Parameters
    ----------
    typename : str
        Name of the tuple type, e.g. ``"SpamHyper"``.
    module : str
        ``__name__`` of the module that assigns the type.
    params : sequence of Param
        The declarations; those with a ``kernel`` conversion become fields, in order.
    missing : dict, optional
        Values for the algorithms of the family that do not declare a parameter
        (e.g. the l1 weight 0 of an l2-only variant); otherwise its default is used.
    """

    def __init__(self, typename: str, module: str, params: Sequence[Param],
                 missing: dict | None = None):
        self.params = tuple(p for p in params if p.kernel is not None)
        self.missing = dict(missing or {})
        fields = [f for p in self.params for f in p.kernel_fields]
        self.type = collections.namedtuple(typename, fields, module=module)
        self._last: tuple = (None, None)

    def __call__(self, values: dict):
        """Return the tuple of kernel scalars for ``values`` (``{name: value}``)."""
        last_values, last = self._last
        if values is last_values:
            return last
        out = []
        for p in self.params:
            value = values[p.name] if p.name in values else self.missing.get(p.name, p.default)
            converted = p.kernel(value)
            if len(p.kernel_fields) > 1:
                out.extend(converted)
            else:
                out.append(converted)
        hyper = self.type._make(out)
        self._last = (values, hyper)
        return hyper


# ------------------------------------------------------- parameters most estimators share
def common(*, max_iter: int | None = None, max_iter_doc: str = "Passes over the data in "
           "``fit``.", shuffle: bool = True, warm_start: bool | str = True) -> tuple[Param, ...]:
    """Return the declarations of the parameters shared by the iterative estimators.

    Parameters
    ----------
    max_iter : int or None
        Default of ``max_iter``; None: the estimator has no ``max_iter``.
    max_iter_doc : str
        Its description.
    shuffle : bool
        Whether the estimator has ``shuffle``.
    warm_start : bool or str
        Whether the estimator has ``warm_start``; a string replaces its description.

    Returns
    -------
    tuple of Param
        ``max_iter``, ``shuffle``, ``random_state``, ``warm_start``, ``verbose``
        (those asked for), then ``max_time``, in this order.
    """
    out = []
    if max_iter is not None:
        out.append(Param("max_iter", max_iter, (Interval(Integral, 1, MAX_PASSES, closed="both"),),
                         "int", max_iter_doc))
    if shuffle:
        out.append(Param("shuffle", True, ("boolean",), "bool",
                         "Reshuffle the samples before each pass of ``fit``."))
    out.append(Param("random_state", None, ("random_state",),
                     "int, RandomState instance or None",
                     "Seed of the random draws (sample order, sketches, coin flips)."))
    if warm_start:
        doc = warm_start if isinstance(warm_start, str) else (
            "Start ``fit`` from the previous solution (the counters restart).")
        out.append(Param("warm_start", False, ("boolean",), "bool", doc))
    out.append(VERBOSE)
    out.append(MAX_TIME)
    return tuple(out)


VERBOSE = Param("verbose", 0, (Interval(Integral, 0, None, closed="left"), "boolean"), "int",
                "Log one line per pass at INFO level on the ``aucopt`` logger.")


MAX_TIME = Param("max_time", None, (POSITIVE, None), "float or None", """
    Time budget of ``fit`` (and of a ``partial_fit`` chunk) in seconds, checked between
    blocks of rows within a pass, between passes and between the outer iterations of the
    batch solvers: when it is spent, the call stops there, keeps the model reached so far
    and warns (``ConvergenceWarning``; rows of a chunk after that point are not learnt).
    None: no limit.""")

def precondition(default="auto") -> Param:
    """Declare ``precondition``: a fixed diagonal preconditioner from the features' spread.

    ``"auto"`` runs the algorithm on the columns divided by their spread ``s_j``
    (:mod:`aucopt.algorithms._precondition`), which is preconditioned SGD with
    ``P = diag(1/s_j^2)`` in the original coordinates (notes.md#preconditioning);
    None is the papers' algorithm.
    """
    return Param(
        "precondition", default, (Options(str, {"auto", "none"}), None), '"auto", "none" or None',
        """\
        ``"auto"``: the algorithm runs on the columns centred (those non-zero in at least
        half of the rows) and divided by their spread ``s_j`` on the training data (the
        first chunk of a stream; the other, sparse, columns share one scale), i.e. every
        step along feature ``j`` is divided by ``s_j^2``, so that the model does not depend
        on the columns' units; training rows more than 3 times the median length are
        shortened to it. The penalty and the radius then act on ``s_j w_j``, as if the
        columns had been standardised (notes.md#preconditioning). None (or
        ``"none"``, e.g. in a TOML config): the papers' algorithm, steps as written. A
        stream (``partial_fit``, River's ``learn_one``) continues with the setting it
        started with: a change is refused until ``fit`` starts afresh.""",
        structural=True)  # the state's iterates are in the coordinates of one setting
