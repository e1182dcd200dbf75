"""scikit-learn estimators, one small public class per algorithm."""

from ._adaoam import AdaOAMClassifier
from ._base import BaseAUCClassifier
from ._mba import MBAClassifier
from ._opauc import (
    OPAUCClassifier,
    OPAUCfClassifier,
    OPAUCpcaClassifier,
    OPAUCrClassifier,
    OPAUCrpClassifier,
)
from ._spam import SPAML2Classifier, SPAMNetClassifier
from ._spdam import SPDAMClassifier
from ._vrspam import VRSPAML2Classifier, VRSPAMNetClassifier

__all__ = [
    "AdaOAMClassifier",
    "MBAClassifier",
    "OPAUCClassifier",
    "OPAUCfClassifier",
    "OPAUCpcaClassifier",
    "OPAUCrClassifier",
    "OPAUCrpClassifier",
    "BaseAUCClassifier",
    "SPAML2Classifier",
    "SPAMNetClassifier",
    "SPDAMClassifier",
    "VRSPAML2Classifier",
    "VRSPAMNetClassifier",
]
