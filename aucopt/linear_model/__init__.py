"""scikit-learn estimators, one small public class per algorithm."""

from ._base import BaseAUCClassifier
from ._spam import SPAML2Classifier, SPAMNetClassifier

__all__ = ["BaseAUCClassifier", "SPAML2Classifier", "SPAMNetClassifier"]
