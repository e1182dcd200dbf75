"""How each algorithm can be trained on a cluster (:mod:`aucopt.distributed`).

One declaration per algorithm: the strategies it supports, the first being what
``strategy="auto"`` picks. ``algorithm_info(id)["distributed"]`` reports it.

``"statistics"``
    The model is a function of per-class counts, means and covariances, which
    are merged exactly across partitions (Chan, Golub and LeVeque 1979):
    B-LS-SVM, Uni-Squ (batch) and OPAUC's batch target (the fixed point
    ``(lam I + S+ + S- + mu mu^T)^-1 mu`` of its gradient, Gao et al., ICML
    2013, Eqs. 2-4, 8).
``"sequential"``
    The state travels from partition to partition (``partial_fit`` where the
    data are): exactly the single-machine chunked ``partial_fit``.
``"average"``
    Iterative parameter mixing (Zinkevich, Weimer, Smola, Li, NIPS 2010;
    McDonald, Hall, Mann, NAACL 2010): one pass per partition from a common
    state, states averaged by partition size, ``n_rounds`` times. Only for
    O(d) states.
``"svrg"``
    Distributed proximal SVRG for VRSPAM: full gradient by map-reduce at each
    snapshot, inner loops on the partitions, averaged.
"""

from __future__ import annotations

from ._registry import get_algorithm

__all__ = ["STRATEGIES", "TAKE_LAST", "distributed_strategies"]

STRATEGIES = ("statistics", "sequential", "average", "svrg")

_EXPLICIT = {
    "b-ls-svm": ("statistics",),
    "uni-squ-batch": ("statistics",),
    "opauc": ("statistics", "sequential"),
    "vrspam-l2": ("svrg",),
    "vrspam-net": ("svrg",),
}
# streaming learners whose whole state is O(d): parameter mixing applies. Not FSAUC: its
# stages are sized for one run over all n examples (Liu et al., ICML 2018, Alg. 1), so a
# partition's pass ends inside the first stage with no stage output (measured on a9a in 8
# partitions: AUC 0.5); it is trained "sequential"
_MIXABLE = ("solam", "solam-l1", "reg-solam", "ftrl-auc", "ogd-fifo", "spam-l2", "spam-net",
            "uni-exp", "uni-squ", "uni-log")

# state entries that describe "the previous example" rather than a model: "average" keeps
# the last partition's instead of mixing them
TAKE_LAST = {"ogd-fifo": ("buf", "buf_y", "buf_sq", "size", "prev_idx", "prev_nnz")}


def distributed_strategies(algorithm_id: str) -> tuple[str, ...]:
    """Return the distributed strategies of ``algorithm_id``, the ``"auto"`` choice first.

    Parameters
    ----------
    algorithm_id : str
        A registry id.

    Returns
    -------
    tuple of str
        Empty for batch solvers that need all the data in one process.
    """
    spec = get_algorithm(algorithm_id)
    if algorithm_id in _EXPLICIT:
        return _EXPLICIT[algorithm_id]
    if algorithm_id in _MIXABLE:
        return ("average", "sequential")
    return ("sequential",) if spec.streaming else ()

