"""Registry-level public API: ``list_algorithms``, ``make``, ``algorithm_info``."""

from __future__ import annotations

import inspect
import textwrap

from .algorithms import get_algorithm
from .algorithms import list_algorithms as _list_ids
from .algorithms._distributed import distributed_strategies

__all__ = ["list_algorithms", "make", "algorithm_info", "estimator_class", "picked"]


def list_algorithms() -> list[str]:
    """Return the registry ids of every algorithm, e.g. ``["spam-l2", "spam-net"]``.

    Returns
    -------
    list of str
    """
    return _list_ids()


def estimator_class(algorithm_id: str) -> type:
    """Return the scikit-learn estimator class registered under ``algorithm_id``.

    Parameters
    ----------
    algorithm_id : str
        A registry id.

    Returns
    -------
    type
    """
    get_algorithm(algorithm_id)  # a clear error for an unknown id
    from .linear_model._declared import registered_class

    return registered_class(algorithm_id)


def make(algorithm_id: str, **params):
    """Return an unfitted estimator for ``algorithm_id`` with ``params``.

    Parameters
    ----------
    algorithm_id : str
        A registry id (see :func:`list_algorithms`), or ``"auto"``: an
        :class:`aucopt.AUCClassifier`, which picks the algorithm from the data when fitted.
    **params
        Hyperparameters of the estimator.

    Returns
    -------
    estimator
        An unfitted scikit-learn estimator.

    Raises
    ------
    ValueError
        For an unknown id (with close matches).
    TypeError
        For a hyperparameter the estimator does not have (the message lists them).
    """
    if algorithm_id == "auto":
        from .linear_model import AUCClassifier

        cls, declared = AUCClassifier, ()
    else:
        cls = estimator_class(algorithm_id)
        declared = get_algorithm(algorithm_id).params
    accepted = [p.name for p in declared] or list(inspect.signature(cls).parameters)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise TypeError(
            f"{cls.__name__} ({algorithm_id!r}) has no parameter(s) {unknown}; "
            f"its parameters are {accepted}."
        )
    return cls(**params)


def picked(estimator):
    """Return the estimator an :class:`aucopt.AUCClassifier` (``make("auto")``) picked when
    it was fitted (its ``estimator_``), or ``estimator`` itself if it is not one.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        (a ``ValueError``) If ``estimator`` is an unfitted :class:`aucopt.AUCClassifier`.
    """
    from .linear_model import AUCClassifier

    return estimator._chosen_estimator() if isinstance(estimator, AUCClassifier) else estimator


def algorithm_info(algorithm_id: str) -> dict:
    """Return what is known about ``algorithm_id``.

    Parameters
    ----------
    algorithm_id : str
        A registry id.

    Returns
    -------
    dict
        Keys ``id``, ``name``, ``class``, ``paper``, ``family``, ``streaming``,
        ``sparse``, ``memory``, ``cost``, ``grid`` (the paper's grid),
        ``quick_grid`` (<= 9 combinations), ``defaults``, ``params`` (one dict per
        declared hyperparameter: ``name``, ``default``, ``type``, ``doc``), ``step_param``,
        ``notes``, ``linear`` (whether the model is a linear scorer with a
        ``coef_``; False for the kernel learners), ``distributed`` (the strategies
        of :func:`aucopt.distributed.fit`, the ``"auto"`` choice first), ``weights``
        (how ``sample_weight`` acts: ``"statistics"``, integer weights equal repeated
        rows exactly; ``"steps"``, a row's stochastic step is scaled by its weight).
    """
    spec = get_algorithm(algorithm_id)
    cls = estimator_class(algorithm_id)
    return {
        "id": spec.id,
        "name": spec.name,
        "class": cls,
        "paper": spec.paper,
        "source": spec.source,
        "family": spec.family,
        "streaming": spec.streaming,
        "sparse": spec.sparse,
        "memory": spec.memory,
        "cost": spec.cost,
        "grid": {k: list(v) for k, v in spec.grid.items()},
        "quick_grid": {k: list(v) for k, v in spec.quick_grid.items()},
        "defaults": cls().get_params(deep=False),
        "params": [{"name": p.name, "default": p.default, "type": p.type,
                    "doc": " ".join(textwrap.dedent(p.doc).split())} for p in spec.params],
        "step_param": spec.step_param,
        "notes": spec.notes,
        "linear": spec.coef is not None,
        "distributed": distributed_strategies(spec.id),
        "weights": spec.weights,
    }
