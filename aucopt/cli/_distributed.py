"""``aucopt fit ... --distributed``: train on a Dask cluster from a glob of LIBSVM parts."""

from __future__ import annotations


def fit_distributed(est, data, *, n_features, scheduler, workers, strategy, rounds):
    """Fit ``est`` on the LIBSVM parts ``data`` (a glob) on a Dask cluster.

    Connects to ``scheduler`` when given, otherwise starts a local cluster of
    ``workers`` processes. Returns the fitted estimator and a one-line summary.
    """
    from .. import distributed as ad

    if n_features is None:
        raise ValueError("--distributed needs --n-features (every part must have the model's "
                         "width).")
    if scheduler is not None and workers is not None:
        raise ValueError("give either --scheduler (an existing cluster) or --workers (a local "
                         "one), not both.")
    X, y = ad.read_svmlight(data, n_features)
    if scheduler is not None:
        from distributed import Client

        context = Client(scheduler, set_as_default=False)
    else:
        context = ad.local_cluster(n_workers=workers)
    with context as client:
        model = ad.fit(est, X, y, strategy=strategy, n_rounds=rounds, client=client,
                       progress=True)
        auc = ad.roc_auc_score(y, ad.decision_function(model, X), client=client)
    return model, (f"strategy {model.distributed_strategy_!r} on {X.numblocks[0]} parts, "
                   f"training AUC {auc:.4f}")
