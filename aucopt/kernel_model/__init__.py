"""Non-linear (kernel) AUC learners and the random Fourier feature map."""

from ._aogd import AOGDClassifier
from ._budget import ProjectionPPClassifier, SparseKernelClassifier
from ._rff import RandomFourierFeatures

__all__ = [
    "AOGDClassifier",
    "ProjectionPPClassifier",
    "RandomFourierFeatures",
    "SparseKernelClassifier",
]
