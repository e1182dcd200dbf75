"""The dataset registry: every dataset the five papers use, with its official address."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

__all__ = ["DatasetInfo", "CONFIG_IDS", "list_datasets", "dataset_info", "register_dataset"]

CONFIG_IDS = (
    "gao2013-t2", "gao2013-t3", "gao2013-t5", "liu2018-t2", "dan-t1", "alquabeh2024-t2",
    "natole2020-t3.2", "natole2020-t4.2", "natole2020-t5.2", "natole2020-t6.3",
    "natole2020-t6.4",
)

_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
_BIN, _MULTI = _LIBSVM + "binary/", _LIBSVM + "multiclass/"
_UCI = "https://archive.ics.uci.edu/dataset/"
_ODDS = "https://odds.cs.stonybrook.edu/"


@dataclass(frozen=True)
class DatasetInfo:
    """One registry record.

    Attributes
    ----------
    name : str
        Registry name.
    url : str
        Official download address (LIBSVM, UCI or ODDS).
    n_samples, n_features : int
        Size as published (for mirror files: the mirror's exact size).
    positive_class : str
        Which label is +1 (or how the multi-class labels are binarised).
    papers : tuple of str
        Experiment config ids whose tables use the dataset.
    sparse : bool
        Whether the data are high-dimensional / sparse (returned as CSR).
    sha256 : str or None
        sha256 of the uncompressed LIBSVM text when known; otherwise the
        shape is verified.
    filename : str
        File name of the download (or mirror file).
    binarize : str or None
        Binarisation scheme the papers need for multi-class data.
    bundled : bool
        Shipped inside the package.
    format : str
        "libsvm" (readable by fetch) or the original format ("uci-csv", "odds-mat").
    notes : str
        Provenance and caveats.
    """

    name: str
    url: str
    n_samples: int
    n_features: int
    positive_class: str
    papers: tuple = ()
    sparse: bool = False
    sha256: str | None = None
    filename: str = ""
    binarize: str | None = None
    bundled: bool = False
    format: str = "libsvm"
    notes: str = ""


_T0 = ("gao2013-t2", "gao2013-t3")
_CH3 = ("natole2020-t3.2",)
_CH4 = ("natole2020-t4.2",)
_CH5 = ("natole2020-t5.2",)
_CH6 = ("natole2020-t6.3",)
_ANOM = ("natole2020-t6.4",)

_RECORDS = [
    DatasetInfo("german.numer", _BIN + "german.numer", 1000, 24, "+1 = bad credit (label 2)",
                _T0 + ("dan-t1", "alquabeh2024-t2") + _CH3 + _CH4 + _CH5 + _CH6,
                sha256="2de7b80fb3f5216f16ccb5c47c4d8412cbee44191eb1c2801c5d2dfdbeb5a258",
                filename="german.numer.bz2", bundled=True,
                notes="UCI Statlog German Credit (numeric); the papers call it 'german'."),
    DatasetInfo("diabetes", _BIN + "diabetes", 768, 8, "+1 = diabetes (tested_positive)",
                _T0 + ("dan-t1", "alquabeh2024-t2") + _CH3 + _CH4 + _CH5 + _CH6,
                sha256="5f09bf560c0703df2bc817238a1ef520a4ae58049b7d075ef64114c5c6258586",
                filename="diabetes.bz2", notes="Pima Indians diabetes, before scaling."),
    DatasetInfo("splice", _BIN + "splice", 3175, 60, "+1 = N (no junction)",
                _T0 + ("dan-t1",) + _CH3 + _CH4 + _CH5 + _CH6,
                sha256="582895819f7e1df5af794b2be4bf8f3c8dcac5b2c00141bfaddaca8edfa2a618",
                filename="splice.bz2",
                notes="All 3175 rows (LIBSVM splice + splice.t); A=1 G=2 C=3 T=4."),
    DatasetInfo("a9a", _BIN + "a9a", 32561, 123, "+1 = income >50K",
                _T0 + ("liu2018-t2", "dan-t1", "alquabeh2024-t2") + _CH3 + _CH4 + _CH5 + _CH6,
                sparse=True,
                sha256="76b604b2c3f738783537bd3b32893eae66af54b8a41aee534fac1ecea45c1535",
                filename="a9a.bz2", notes="UCI Adult, LIBSVM encoding; test set is a9a.t."),
    DatasetInfo("a9a.t", _BIN + "a9a.t", 16281, 123, "+1 = income >50K", ("liu2018-t2",),
                sparse=True,
                sha256="0c3135eb9b9d83a4fa007d6e1a3b719f029db78884dafd5a46a4d7eeb4c2b018",
                filename="a9a.t.bz2", notes="FSAUC halves it into validation and test."),
    DatasetInfo("fourclass", _BIN + "fourclass", 862, 2, "+1 as given", _T0 + _CH3 + _CH4
                + _CH5 + _CH6, filename="fourclass"),
    DatasetInfo("usps", _MULTI + "usps.bz2", 9298, 256, "10 digits -> two groups of five",
                _T0 + ("dan-t1", "alquabeh2024-t2") + _CH3 + _CH4 + _CH5 + _CH6,
                filename="usps.bz2", binarize="random-half",
                notes="7291 train (usps.bz2) + 2007 test (usps.t.bz2) = 9298 rows."),
    DatasetInfo("letter", _MULTI + "letter.scale", 15000, 16, "26 letters -> two groups of 13",
                _T0, filename="letter.scale", binarize="random-half"),
    DatasetInfo("magic04", _UCI + "159/magic+gamma+telescope", 19020, 10, "+1 = gamma (g)", _T0,
                format="uci-csv", filename="magic04.data"),
    DatasetInfo("w8a", _BIN + "w8a", 49749, 300, "+1 as given",
                _T0 + ("liu2018-t2", "dan-t1"), sparse=True, filename="w8a"),
    DatasetInfo("kddcup04", "https://www.kdd.org/kdd-cup/view/kdd-cup-2004/Data", 50000, 65,
                "+1 = particle of interest (physics task)", _T0, format="uci-csv",
                filename="phy_train.dat", notes="KDD Cup 2004 quantum physics task."),
    DatasetInfo("mnist", _MULTI + "mnist.bz2", 60000, 780, "10 digits -> two groups of five",
                _T0 + ("dan-t1", "alquabeh2024-t2") + _CH3 + _CH4 + _CH5 + _CH6, sparse=True,
                filename="mnist.bz2", binarize="random-half"),
    DatasetInfo("connect-4", _MULTI + "connect-4", 67557, 126, "3 classes -> random grouping",
                _T0, sparse=True, filename="connect-4", binarize="random-half"),
    DatasetInfo("acoustic", _MULTI + "acoustic.bz2", 78823, 50, "3 classes -> random grouping",
                _T0 + ("dan-t1",) + _CH3 + _CH4 + _CH5 + _CH6, filename="acoustic.bz2",
                binarize="random-half", notes="SensIT Vehicle (acoustic), train + test."),
    DatasetInfo("ijcnn1", _BIN + "ijcnn1.bz2", 141691, 22, "+1 as given",
                _T0 + ("liu2018-t2", "dan-t1", "alquabeh2024-t2") + _CH3 + _CH4 + _CH5 + _CH6,
                filename="ijcnn1.bz2"),
    DatasetInfo("epsilon", _BIN + "epsilon_normalized.bz2", 400000, 2000, "+1 as given", _T0,
                filename="epsilon_normalized.bz2"),
    DatasetInfo("covtype", _BIN + "covtype.libsvm.binary.bz2", 581012, 54,
                "+1 = class 1 of the LIBSVM binary version",
                _T0 + ("liu2018-t2",) + _CH3 + _CH4 + _CH5 + _CH6, sparse=True,
                filename="covtype.libsvm.binary.bz2"),
    DatasetInfo("sector", _MULTI + "sector/sector.scale.bz2", 9619, 55197,
                "105 classes -> two groups", ("gao2013-t5",) + _CH3 + _CH4 + _CH5 + _CH6,
                sparse=True, filename="sector.scale.bz2", binarize="random-half"),
    DatasetInfo("sector.lvr", _MULTI + "sector/sector.scale.bz2", 9619, 55197,
                "largest class vs rest", ("gao2013-t5",), sparse=True,
                filename="sector.scale.bz2", binarize="largest-vs-rest"),
    DatasetInfo("news20", _MULTI + "news20.bz2", 15935, 62061, "20 classes -> two groups",
                ("gao2013-t5",) + _CH3 + _CH4 + _CH6, sparse=True, filename="news20.bz2",
                binarize="random-half"),
    DatasetInfo("news20.binary", _BIN + "news20.binary.bz2", 19996, 1355191, "+1 as given",
                ("gao2013-t5", "liu2018-t2"), sparse=True, filename="news20.binary.bz2"),
    DatasetInfo("rcv1v2", _LIBSVM + "multilabel/rcv1_topics_train.svm.bz2", 23149, 47236,
                "largest topic label vs rest", ("gao2013-t5",), sparse=True,
                filename="rcv1_topics_train.svm.bz2", binarize="largest-vs-rest"),
    DatasetInfo("ecml2012", "https://www.ecmlpkdd2012.net/discovery-challenge/", 456886, 98519,
                "largest label vs rest", ("gao2013-t5",), sparse=True, format="other",
                notes="ECML/PKDD 2012 discovery challenge; no public LIBSVM copy is known."),
    DatasetInfo("real-sim", _BIN + "real-sim.bz2", 72309, 20958, "+1 as given",
                ("liu2018-t2",), sparse=True, filename="real-sim.bz2"),
    DatasetInfo("rcv1", _BIN + "rcv1_train.binary.bz2", 20242, 47236, "+1 as given",
                ("liu2018-t2", "alquabeh2024-t2"), sparse=True, filename="rcv1_train.binary.bz2",
                notes="FSAUC's rcv1_binary uses train + test (581,368 rows)."),
    DatasetInfo("higgs", _BIN + "HIGGS.bz2", 11000000, 28, "+1 = signal", ("liu2018-t2",),
                filename="HIGGS.bz2"),
    DatasetInfo("alpha", "http://largescale.ml.tu-berlin.de/", 500000, 500, "+1 as given",
                _CH6, format="other", notes="PASCAL large scale challenge."),
    DatasetInfo("beta", "http://largescale.ml.tu-berlin.de/", 500000, 500, "+1 as given", _CH6,
                format="other", notes="PASCAL large scale challenge."),
    DatasetInfo("ionosphere", _BIN + "ionosphere_scale", 351, 34, "+1 = good radar return",
                _CH6, filename="ionosphere_scale"),
    DatasetInfo("svmguide3", _BIN + "svmguide3", 1243, 21, "+1 as given", _CH6,
                filename="svmguide3"),
    DatasetInfo("arrhythmia", _ODDS + "arrhythmia-dataset/", 452, 274, "+1 = anomaly", _ANOM,
                format="odds-mat", filename="arrhythmia.mat"),
    DatasetInfo("australian", _BIN + "australian", 690, 14, "+1 as given", _ANOM,
                filename="australian"),
    DatasetInfo("breastw", _ODDS + "breast-cancer-wisconsin-original-dataset/", 683, 9,
                "+1 = malignant (anomaly)", _ANOM, format="odds-mat", filename="breastw.mat"),
    DatasetInfo("cod-rna", _BIN + "cod-rna", 59535, 8, "+1 as given", _ANOM,
                filename="cod-rna", notes="The thesis lists 9 features; LIBSVM cod-rna has 8."),
    DatasetInfo("mammography", _ODDS + "mammography-dataset/", 11183, 6, "+1 = anomaly",
                _ANOM, format="odds-mat", filename="mammography.mat"),
    DatasetInfo("spambase", _UCI + "94/spambase", 4601, 57, "+1 = spam", _ANOM,
                format="uci-csv", filename="spambase.data"),
    DatasetInfo("thyroid", _ODDS + "thyroid-disease-dataset/", 3772, 6, "+1 = anomaly", _ANOM,
                format="odds-mat", filename="thyroid.mat"),
    DatasetInfo("webspam", _BIN + "webspam_wc_normalized_unigram.svm.bz2", 350000, 254,
                "+1 as given", _ANOM, filename="webspam_wc_normalized_unigram.svm.bz2"),
    DatasetInfo("shuttle", _ODDS + "shuttle-dataset/", 49097, 9, "+1 = anomaly", (),
                sha256="5cdd16bfb4a816f0c9bed92a4936c854ba2297cf7258dbb1fe87a5d344932fc3",
                filename="shuttle.bz2", notes="ODDS version; not used by the five papers."),
    DatasetInfo("sylva", "http://www.agnostic.inf.ethz.ch/datasets.php", 13086, 216,
                "+1 as given", (),
                sha256="16ab0033b7788ec8bfdc97d123c0e55569fe2a000d2e3309345c40de4f5648da",
                filename="sylva.bz2", notes="Agnostic learning challenge; mirror only."),
    DatasetInfo("mnist5k", _MULTI + "mnist.bz2", 5000, 784, "+1 = even digit", (),
                sha256="cd5282c4ebeaf16ae9cd6e1d05281538b4216aa602e8078734eda38d3387a73e",
                filename="mnist5k.bz2",
                notes="5000-image subset (mirror only); NOT the papers' mnist."),
]

_REGISTRY: dict[str, DatasetInfo] = {r.name: r for r in _RECORDS}
_ALIASES = {"german": "german.numer", "covtype_binary": "covtype", "rcv1_binary": "rcv1",
            "HIGGS": "higgs", "svmguid3": "svmguide3"}


def list_datasets() -> list[DatasetInfo]:
    """Return every registry record, sorted by name.

    Returns
    -------
    list of DatasetInfo
    """
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def dataset_info(name: str) -> DatasetInfo:
    """Return the record of ``name`` (the papers' spellings are accepted as aliases).

    Parameters
    ----------
    name : str

    Returns
    -------
    DatasetInfo
    """
    key = _ALIASES.get(name, name)
    if key in _REGISTRY:
        return _REGISTRY[key]
    close = difflib.get_close_matches(str(name), list(_REGISTRY) + list(_ALIASES), n=3)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(f"Unknown dataset {name!r}.{hint} See aucopt.datasets.list_datasets().")


def register_dataset(info: DatasetInfo, *, replace: bool = False) -> DatasetInfo:
    """Add (or, with ``replace=True``, overwrite) a registry record.

    Parameters
    ----------
    info : DatasetInfo
    replace : bool, default=False

    Returns
    -------
    DatasetInfo
    """
    if info.name in _REGISTRY and not replace:
        raise ValueError(f"Dataset {info.name!r} is already registered; pass replace=True.")
    _REGISTRY[info.name] = info
    return info
