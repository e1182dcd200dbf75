"""``aucopt.distributed.fit``: train an aucopt estimator on partitioned data."""

from __future__ import annotations

import functools
import logging
from numbers import Integral

import numpy as np

from ..algorithms._distributed import distributed_strategies
from ..algorithms._time_budget import budget
from ..utils._warnings import warn_external
from . import _train
from ._cluster import compute, connect
from ._data import (
    block_stats,
    feature_names,
    held_in_memory,
    merge_stats,
    partitions,
    tree_reduce,
)

__all__ = ["fit"]

logger = logging.getLogger(__name__)


def _group_stats(xs, ys, ks, scatter, n_features):
    """Merged :func:`block_stats` of the partitions ``ks`` (one task), and each partition's
    rows and labels: ``(widths, stats, {k: (n_rows, labels)})``."""
    merged, summaries = None, {}
    for x, y, k in zip(xs, ys, ks):
        item = block_stats(x, y, k, scatter, n_features)
        summaries[k] = (sum(row[0] for row in item[1].values()), sorted(item[1]))
        merged = item if merged is None else merge_stats(merged, item)
    return (*merged, summaries)


def _merge_groups(a, b):
    """Merge two results of :func:`_group_stats`."""
    return (*merge_stats(a[:2], b[:2]), {**a[2], **b[2]})


def _groups(client, xs) -> list[list[int]]:
    """The partitions each statistics task reads: those a worker holds in memory (persisted
    and computed), shared among its threads, so that a fit pays Dask's cost per task a few
    times instead of once per partition; else one partition per task (a partition read by
    its task: a task of several would hold them all in memory at once)."""
    from distributed import futures_of

    futures = [next((f for f in futures_of(x) if f.key == getattr(x, "key", None)), None)
               for x in xs]  # (the future a persisted partition stands for)
    if not xs or any(f is None or f.status != "finished" for f in futures):
        return [[k] for k in range(len(xs))]  # (not in memory yet: no waiting here, where
    holders = client.who_has(futures)  # no worker might ever compute them)
    threads = client.nthreads()
    by_worker = {}
    for k, future in enumerate(futures):
        held = holders.get(future.key) or (None,)
        by_worker.setdefault(held[0], []).append(k)
    groups = []
    for worker, ks in by_worker.items():
        n = min(len(ks), threads.get(worker, 1) if worker is not None else len(ks))
        groups += [ks[i::n] for i in range(n)]
    return groups


def class_statistics(client, xs, ys, *, scatter, n_features=None, progress=False):
    """Check every partition and merge their class statistics (one pass over the data).

    Returns
    -------
    n_features : int
    stats : PartStats
        Merged over all partitions.
    summaries : list of (n_rows, labels)
        One per partition.
    """
    import dask

    # (impure: new keys for every fit, which never takes the statistics of an earlier one
    # that the scheduler has not released yet, e.g. of files since rewritten)
    items = [dask.delayed(_group_stats, pure=False)([xs[k] for k in ks], [ys[k] for k in ks],
                                                    ks, scatter, n_features)
             for ks in _groups(client, xs)]
    widths, stats, summaries = compute(client, tree_reduce(items, _merge_groups), progress)
    return next(iter(widths)), stats, [summaries[k] for k in range(len(xs))]


def _classes(est, stats):
    labels = sorted(stats)
    if len(labels) != 2:
        if not labels:
            raise ValueError(f"{type(est).__name__} needs rows of two classes; every partition "
                             "is empty. Check the data (a filter that kept no row?).")
        what = "only one class" if len(labels) < 2 else f"{len(labels)} classes"
        raise ValueError(f"{type(est).__name__} needs exactly two classes in y; the partitions "
                         f"hold {what} ({labels[:10]}). Binarise y first "
                         "(aucopt.datasets.binarize) or check the data.")
    return est._check_targets(np.array(labels))  # class labels (not -2.5 and 2.5), as fit


def _resolve(est, strategy):
    algorithm = getattr(est, "_algorithm", None)
    if not algorithm:
        raise TypeError(f"fit takes an aucopt estimator (e.g. aucopt.make('spam-l2')); got "
                        f"{type(est).__name__}.")
    available = distributed_strategies(algorithm)
    if not available:
        raise ValueError(f"{algorithm!r} is a batch solver that needs all the data in one "
                         "process; it has no distributed strategy. Use e.g. 'b-ls-svm', "
                         "'uni-squ-batch', 'opauc' (exact, strategy='statistics') or a streaming "
                         "learner such as 'spam-l2'.")
    chosen = available[0] if strategy == "auto" else strategy
    if chosen not in available:
        raise ValueError(f"strategy={strategy!r} is not available for {algorithm!r}; its "
                         f"strategies are {list(available)} (see "
                         f"aucopt.algorithm_info({algorithm!r})['distributed']).")
    return chosen


def _warm_ids(est, strategy):
    """The registry ids whose kernels the workers run for ``strategy``."""
    if strategy == "statistics":
        return ()  # NumPy on the workers, the solve on the client
    if strategy == "svrg":  # the mixed SPAM start, then VRSPAM's snapshot and inner loops
        return (est._algorithm, "spam-net" if "beta1" in est.get_params(deep=False)
                else "spam-l2")
    return (est._algorithm,)


def fit(estimator, X, y=None, *, strategy="auto", client=None, n_rounds=None, progress=False,
        persist=False, warm=True):
    """Fit ``estimator`` on partitioned data on a Dask cluster and return it fitted.

    The result is the plain estimator (a fitted copy): it predicts locally and
    saves with :func:`aucopt.io.save`, which records the strategy
    (``distributed_strategy_``). One checking pass reads every partition first
    (widths, rows, labels, NaN/inf, class statistics); errors name the partition.

    Parameters
    ----------
    estimator : BaseAUCClassifier
        An aucopt estimator (hyperparameters are used; it is not modified).
    X : dask.array.Array of shape (n, d), dask.dataframe.DataFrame, or the pair ``(X, y)``
        Dense or scipy.sparse chunks, partitioned by rows (e.g. from
        :func:`read_svmlight`), or a DataFrame whose numeric columns are the
        features (its partitions are the blocks). Empty partitions are skipped.
    y : dask.array.Array of shape (n,), dask.dataframe.Series or str, optional
        Binary labels (omit when ``X`` is the pair); with a DataFrame, the name of
        its label column (the other columns are the features).
    strategy : {"auto", "statistics", "sequential", "average", "svrg"}, default="auto"
        See :mod:`aucopt.algorithms._distributed`; ``"auto"`` takes the first of
        ``aucopt.algorithm_info(id)["distributed"]``. ``"statistics"`` and
        ``"sequential"`` equal the single-machine results (to rounding, and bit
        for bit respectively); ``"average"`` and ``"svrg"`` are approximations.
    client : distributed.Client, str or None
        Client or scheduler address; None uses Dask's default client (e.g. the
        one of :func:`local_cluster`).
    n_rounds : int, optional
        ``"average"``: passes over the data (default ``estimator.max_iter``);
        ``"svrg"``: outer stages (default ``estimator.max_iter``). The estimator's
        ``max_time`` bounds the calibration and the rounds (stages) together: checked
        between rounds, never before the first, it keeps the model of the rounds done and
        warns (``ConvergenceWarning``), as a single-machine ``fit`` does between passes.
    progress : bool, default=False
        Show Dask's progress bar for each pass.
    persist : bool, default=False
        Keep the partitions in the workers' memory for the whole fit (released at
        the end): each pass then reads memory instead of parsing the files again.
        Costs the parsed data in the workers' memory: 12 bytes per stored value of
        a CSR part (8 for dense) plus 8 per row. Without it, each pass reads every
        partition once.
    warm : bool, default=True
        Load the algorithm's compiled kernels on every worker once, including
        workers that join later (a Dask worker plugin running
        :func:`aucopt.warmup`), so that no task pays for it.

    Returns
    -------
    BaseAUCClassifier
        A fitted copy of ``estimator``.

    Raises
    ------
    ValueError
        For an unavailable strategy, fewer or more than two classes, partitions of
        different widths, NaN or infinity (naming the partition); with
        ``"average"`` or ``"svrg"`` also for a partition with one class (its local
        model would see no pairs).
    NoWorkersError
        If no worker can run the fit's tasks for 30 s in a row
        (``aucopt.distributed.NO_WORKER_TIMEOUT``): every worker gone, or the workers
        holding its tasks paused at their memory limit.
    """
    from sklearn.base import clone

    strategy = _resolve(estimator, strategy)
    if n_rounds is not None and (not isinstance(n_rounds, Integral) or isinstance(
            n_rounds, bool) or n_rounds < 1):
        raise ValueError(f"n_rounds must be a positive int or None; got {n_rounds!r}.")
    for name, flag in (("persist", persist), ("warm", warm)):
        if not isinstance(flag, bool | np.bool_):
            raise ValueError(f"{name} must be True or False; got {flag!r}.")
    est = clone(estimator)
    est._validate_params()
    if strategy != "sequential" and est.get_params().get("precondition") == "auto":
        # (a log line at INFO went unseen: on columns of other spreads the model ranked at
        # 0.80 where the single-machine fit reached 0.96)
        warn_external(f"strategy={strategy!r} runs the papers' algorithm on the columns as "
                      "they are: the preconditioner (precondition='auto') applies to "
                      "'sequential' and to single-machine fits only. Scale the columns first "
                      "(e.g. standardise them) when their spreads differ, and pass "
                      "precondition=None to say so.")
    names = feature_names(X, y)  # (a DataFrame's columns, as fit on pandas keeps them)
    xs, ys, width = partitions(X, y)
    if strategy == "statistics":
        _train.check_statistics_memory(est, width)
    with connect(client) as dask_client:
        if warm and _warm_ids(est, strategy):
            from ._warm import warm_workers

            warm_workers(dask_client, _warm_ids(est, strategy))
        if persist:
            xs, ys = _persisted(dask_client, xs, ys)
        n_features, stats, summaries = class_statistics(
            dask_client, xs, ys, scatter=strategy == "statistics", n_features=width,
            progress=progress)
        classes = _classes(est, stats)
        kept = [k for k, (n, _) in enumerate(summaries) if n]
        xs, ys, summaries = ([xs[k] for k in kept], [ys[k] for k in kept],
                             [summaries[k] for k in kept])
        logger.info("%s: %d partitions, %d rows, %d features; strategy %r", est._algorithm,
                    len(xs), sum(n for n, _ in summaries), n_features, strategy)
        if strategy in ("average", "svrg"):
            for k, (_, labels) in zip(kept, summaries):
                if len(labels) < 2:
                    raise ValueError(
                        f"partition {k} holds only the class {labels}: strategy={strategy!r} "
                        "trains a local model per partition, which needs both classes. "
                        "Shuffle the rows across partitions first, or use strategy="
                        "'sequential'.")
        if strategy == "sequential":
            est = _train.sequential(dask_client, est, xs, ys, classes, progress)
        else:
            est.n_features_in_ = n_features
            sizes = [n for n, _ in summaries]
            rounds = est.max_iter if n_rounds is None else int(n_rounds)
            if strategy == "statistics":
                result = _train.statistics(est, stats, classes, n_features)
            else:
                train = (functools.partial(_train.average,
                                           one_graph=persist or held_in_memory(xs + ys))
                         if strategy == "average" else _train.svrg)
                trainer = (est if strategy == "average"
                           else _train.with_auto_beta(est, stats, classes))
                # max_time: one budget for the calibration and the rounds, checked between
                # rounds (svrg: stages), as a single-machine fit checks it between passes
                with budget(est.get_params().get("max_time"),
                            f"aucopt.distributed.fit({type(est).__name__}, {strategy!r})"):
                    trainer, step = _train.calibrated(dask_client, trainer, xs[0], ys[0],
                                                      classes, rounds, progress)
                    result, step = _train.restarting(train, trainer, step, dask_client, xs,
                                                     ys, classes, stats, sizes, rounds,
                                                     progress)
                name = est._spec().step_param
                if name is not None:  # the step used, as fit records it: the calibrated one,
                    asked = est.get_params()[name]  # None if "auto" could not calibrate, or
                    used = step if step is not None else (  # the number given
                        None if isinstance(asked, str) else asked)
                    setattr(est, f"{name}_", used)
            _commit(est, *result, classes)
    est.distributed_strategy_ = strategy
    if names is not None:
        est.feature_names_in_ = names
    return est


def _persisted(client, xs, ys):
    """``xs, ys`` computed once and kept on the workers (each X, y pair from one read)."""
    kept = client.persist(list(xs) + list(ys), optimize_graph=False)
    return kept[:len(xs)], kept[len(xs):]


def _commit(est, state, rng, t, n_iter, classes):
    """Install a state computed on the cluster, as ``BaseAUCClassifier._fit_rows`` does."""
    est._state, est._rng, est.t_ = state, rng, int(t)
    est.n_iter_ = int(n_iter)
    est.classes_ = classes
    est._set_coef()
