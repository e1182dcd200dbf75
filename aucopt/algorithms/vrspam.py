"""VRSPAM-L2 and VRSPAM-NET: proximal SVRG on SPAM's finite sum (Dan & Sahoo, Algorithm 1)."""

from __future__ import annotations

import numpy as np

from .._kernels._checks import OK
from .._kernels.vrspam import vrspam_stage
from . import spam
from ._fast import select
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["AUTO_ETA", "VRSPAM_L2", "VRSPAM_NET", "resolve_step"]

PAPER = (
    "S. Dan, D. Sahoo. Variance reduced stochastic proximal algorithm for AUC maximization "
    "(VRSPAM), 2020; M. Natole Jr., PhD thesis, SUNY Albany 2020, Algorithm 17."
)

# eta="auto": eta = AUTO_ETA / M^2 = 1/(4L) with the Lipschitz constant L = 8 M^2 of the
# component gradients (Dan & Sahoo, Lemma 2), the usual Prox-SVRG condition
# (notes.md#vrspam-defaults).
AUTO_ETA = 1.0 / 32.0


def resolve_step(params: dict, state: dict, n_samples: int) -> tuple[float, int]:
    """Return the constant step and the inner-loop length the run uses.

    Parameters
    ----------
    params : dict
        Estimator hyperparameters (``eta``, ``inner``).
    state : dict
        State holding ``data_sqmax`` (largest squared row norm ``M^2``).
    n_samples : int
        Training-set size ``n``.

    Returns
    -------
    eta : float
    inner : int
    """
    m2 = max(float(state["data_sqmax"][0]), 1e-300)
    eta = AUTO_ETA / m2 if params["eta"] == "auto" else float(params["eta"])
    inner = 2 * n_samples if params["inner"] == "auto" else int(params["inner"])
    return eta, inner


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh VRSPAM state.

    Parameters
    ----------
    n_features, n_samples : int
        Shape of the training set.
    params : dict
        Estimator hyperparameters.
    rng : numpy.random.Generator, optional
        Unused here (the inner samples are drawn in :func:`run`).

    Returns
    -------
    dict
        ``w`` (the snapshot ``w~_s``), ``started`` (1,) (1 once a start point
        exists, so ``warm_start`` skips the SPAM initialisation), ``n_iter``
        (1,) stages run, ``change`` (1,) the last relative snapshot change.
    """
    return {
        "w": np.zeros(n_features),
        "started": np.zeros(1, dtype=np.int64),
        "n_iter": np.zeros(1, dtype=np.int64),
        "change": np.full(1, np.inf),
    }


def _spam_start(state, rows: RowData, y, order, params) -> int:
    """Set ``state["w"]`` to the averaged iterate of one SPAM pass (Johnson-Zhang practice)."""
    spam_params = {"beta": params["beta"], "beta1": params.get("beta1", 0.0),
                   "eta0": params["eta0"], "schedule": "inv_sqrt", "power_t": 0.5,
                   "stats": "train", "warmup": 0.1, "output": "average"}
    tmp = spam.init_state(rows.n_features, rows.n_samples, spam_params)
    tmp.update({key: state[key] for key in ("data_count", "data_sum", "data_sqmax")})
    _, status = spam.run(tmp, rows, y, order, spam_params, 0, True)
    state["w"][...] = spam.iterates(tmp)[1]
    return status


def run(state, rows: RowData, y, order, params, t, learn, rng):
    """Run up to ``max_iter`` outer stages of VRSPAM (the whole ``fit``).

    ``order`` is the sample order of the SPAM initialisation pass
    (``init="spam"``); each stage draws its ``inner`` sample indices with
    replacement from ``rng``. Stops early when the relative change of the
    snapshot falls to ``tol`` or below.
    """
    n, d = rows.n_samples, rows.n_features
    if not state["started"][0] and params["init"] == "spam":
        status = _spam_start(state, rows, y, order, params)
        if status != OK:
            return t, status
    state["started"][0] = 1
    eta, inner = resolve_step(params, state, n)
    w = state["w"]
    w_ref, mu, s_ref = np.empty(d), np.empty(d), np.empty(n)
    state["n_iter"][0] = 0
    for _ in range(params["max_iter"]):
        picks = rng.integers(0, n, size=inner)
        previous = w.copy()
        t, status = select(vrspam_stage)(
            w, w_ref, mu, s_ref, state["data_count"], state["data_sum"], rows.data, rows.indices,
            rows.indptr, y, picks, eta, float(params["beta"]), float(params.get("beta1", 0.0)), t)
        if status != OK:
            return t, status
        state["n_iter"][0] += 1
        scale = max(float(np.linalg.norm(w)), 1e-12)
        state["change"][0] = float(np.linalg.norm(w - previous)) / scale
        if state["change"][0] <= params["tol"]:
            break
    return t, OK


def coef(state, params) -> np.ndarray:
    """Return the last snapshot ``w~_S``."""
    return state["w"]


_COMMON = dict(
    family="vrspam",
    paper=PAPER,
    source="Dan & Sahoo (VRSPAM); thesis Alg. 17",
    streaming=False,
    sparse=True,
    memory="O(n + d) besides the stored training set",
    cost="O(n nnz + m d) per stage (full gradient plus m = inner dense proximal steps)",
    init_state=init_state,
    run=run,
    coef=coef,
    step_param="eta",
    warm_keys=("w", "started"),
    epochs_by_base=False,
)

VRSPAM_L2 = register(
    AlgorithmSpec(
        id="vrspam-l2",
        name="VRSPAM-L2",
        estimator="aucopt.linear_model._vrspam:VRSPAML2Classifier",
        grid={"beta": spam.BETAS},
        quick_grid={"beta": (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)},
        notes="Paper grid beta in 10^[-5:5] by 5-fold CV; eta, inner and the stage count are "
        "not given by the paper (notes.md#vrspam-defaults): eta = 1/(32 M^2), inner = 2n, stop at "
        "tol.",
        **_COMMON,
    )
)

VRSPAM_NET = register(
    AlgorithmSpec(
        id="vrspam-net",
        name="VRSPAM-NET",
        estimator="aucopt.linear_model._vrspam:VRSPAMNetClassifier",
        grid={"beta": spam.BETAS, "beta1": spam.BETAS},
        quick_grid={"beta": (1e-4, 1e-2), "beta1": (1e-5, 1e-4, 1e-3, 1e-2)},
        notes="Paper grid beta1 in 10^[-5:5] (beta on the same grid, "
              "notes.md#spam-net-names/notes.md#vrspam-defaults).",
        **_COMMON,
    )
)
