"""River front-end: aucopt's streaming AUC learners and exact AUC metrics for River.

Needs the optional dependency River (``pip install aucopt[river]``)::

    from river import evaluate
    from aucopt.river import AUCClassifier, ExactROCAUC
    evaluate.progressive_val_score(stream, AUCClassifier("spam-l2"), ExactROCAUC())
"""

try:
    import river  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("aucopt.river needs River: pip install 'aucopt[river]'.") from exc

from ._classifier import AUCClassifier
from ._metrics import ExactPartialAUC, ExactROCAUC, ExactRollingROCAUC
from ._prequential import prequential

__all__ = ["AUCClassifier", "ExactPartialAUC", "ExactROCAUC", "ExactRollingROCAUC",
           "prequential"]
