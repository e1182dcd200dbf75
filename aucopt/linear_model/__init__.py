"""scikit-learn estimators, one small public class per algorithm."""

from ._adaoam import AdaOAMClassifier
from ._auto import AUCClassifier, choose
from ._base import BaseAUCClassifier
from ._batch_pairwise import LSSVMClassifier, SVMORClassifier, SVMPerfClassifier
from ._batch_univariate import UniLogBatchClassifier, UniSquBatchClassifier
from ._fsauc import FSAUCClassifier
from ._ftrl_auc import FTRLAUCClassifier
from ._mba import MBAClassifier
from ._oam import OAMGraClassifier, OAMSeqClassifier
from ._opauc import (
    OPAUCClassifier,
    OPAUCfClassifier,
    OPAUCpcaClassifier,
    OPAUCrClassifier,
    OPAUCrpClassifier,
)
from ._pairwise_buffer import KarClassifier, OGDFIFOClassifier
from ._pauc import PAUC1PMBClassifier, PAUC2PMBClassifier, SVMPAUCClassifier
from ._pauc_dro import SOPASClassifier, SOTASClassifier
from ._pauc_sopa import SOPAClassifier
from ._solam import RegSOLAMClassifier, SOLAMClassifier, SOLAML1Classifier
from ._spam import SPAML2Classifier, SPAMNetClassifier
from ._spdam import SPDAMClassifier
from ._univariate import UniExpClassifier, UniLogClassifier, UniSquClassifier
from ._vrspam import VRSPAML2Classifier, VRSPAMNetClassifier

__all__ = [
    "AUCClassifier",
    "AdaOAMClassifier",
    "FSAUCClassifier",
    "FTRLAUCClassifier",
    "KarClassifier",
    "MBAClassifier",
    "OAMGraClassifier",
    "OAMSeqClassifier",
    "OGDFIFOClassifier",
    "OPAUCClassifier",
    "OPAUCfClassifier",
    "OPAUCpcaClassifier",
    "OPAUCrClassifier",
    "OPAUCrpClassifier",
    "PAUC1PMBClassifier",
    "PAUC2PMBClassifier",
    "BaseAUCClassifier",
    "LSSVMClassifier",
    "SVMORClassifier",
    "SVMPerfClassifier",
    "SVMPAUCClassifier",
    "UniLogBatchClassifier",
    "UniSquBatchClassifier",
    "RegSOLAMClassifier",
    "SOLAMClassifier",
    "SOLAML1Classifier",
    "SOPAClassifier",
    "SOPASClassifier",
    "SOTASClassifier",
    "SPAML2Classifier",
    "SPAMNetClassifier",
    "SPDAMClassifier",
    "UniExpClassifier",
    "UniLogClassifier",
    "UniSquClassifier",
    "VRSPAML2Classifier",
    "VRSPAMNetClassifier",
    "choose",
]
