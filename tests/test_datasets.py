"""Datasets: bundled data, the registry, fetching (a real HTTP server on 127.0.0.1, mirrors,
cache, verification), preprocessing schemes, synthetic problems and binarisation.

Offline: no network beyond 127.0.0.1, and nothing outside the package and tmp_path."""

import ast
import bz2
import gzip
import hashlib
import inspect
import json
import logging
import lzma
import re
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import roc_auc_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from aucopt.datasets import (
    BINARIZATION_SCHEMES,
    CONFIG_IDS,
    PREPROCESSING_SCHEMES,
    DatasetDownloadError,
    DatasetInfo,
    DatasetIntegrityError,
    DatasetNotAvailableError,
    binarize,
    dataset_info,
    fetch,
    get_data_home,
    list_datasets,
    load,
    make_auc_problem,
    make_drift_stream,
    make_preprocessor,
    preprocess,
    register_dataset,
)
from aucopt.datasets._fetch import BUNDLED_DIR

from ._dataset_fixtures import http_server, isolated_cache, libsvm_text  # noqa: F401

# name -> (n_samples, n_features, sha256 of the uncompressed text): the mirror's MANIFEST.json
MIRROR = {
    "german.numer": (1000, 24, "2de7b80fb3f5216f16ccb5c47c4d8412cbee44191eb1c2801c5d2dfdbeb5a258"),
    "diabetes": (768, 8, "5f09bf560c0703df2bc817238a1ef520a4ae58049b7d075ef64114c5c6258586"),
    "splice": (3175, 60, "582895819f7e1df5af794b2be4bf8f3c8dcac5b2c00141bfaddaca8edfa2a618"),
    "a9a": (32561, 123, "76b604b2c3f738783537bd3b32893eae66af54b8a41aee534fac1ecea45c1535"),
    "a9a.t": (16281, 123, "0c3135eb9b9d83a4fa007d6e1a3b719f029db78884dafd5a46a4d7eeb4c2b018"),
    "shuttle": (49097, 9, "5cdd16bfb4a816f0c9bed92a4936c854ba2297cf7258dbb1fe87a5d344932fc3"),
    "sylva": (13086, 216, "16ab0033b7788ec8bfdc97d123c0e55569fe2a000d2e3309345c40de4f5648da"),
    "mnist5k": (5000, 784, "cd5282c4ebeaf16ae9cd6e1d05281538b4216aa602e8078734eda38d3387a73e"),
}
_T0 = {"diabetes", "fourclass", "german.numer", "splice", "usps", "letter", "magic04", "a9a",
       "w8a", "kddcup04", "mnist", "connect-4", "acoustic", "ijcnn1", "epsilon", "covtype"}
_CH4 = {"diabetes", "fourclass", "german.numer", "splice", "usps", "a9a", "mnist", "acoustic",
        "ijcnn1", "covtype", "sector", "news20"}
# the paper's table: the datasets of each reproduced table (with the official test sets FSAUC uses)
TABLES = {
    "gao2013-t2": _T0, "gao2013-t3": _T0,
    "gao2013-t5": {"sector", "sector.lvr", "news20", "news20.binary", "rcv1v2", "ecml2012"},
    "liu2018-t2": {"a9a", "a9a.t", "ijcnn1", "covtype.binary", "higgs", "w8a", "w8a.t",
                   "real-sim", "rcv1", "rcv1.t", "news20.binary"},
    "dan-t1": {"diabetes", "german.numer", "splice", "usps", "a9a", "w8a", "mnist", "acoustic",
               "ijcnn1"},
    "alquabeh2024-t2": {"diabetes", "ijcnn1", "a9a", "mnist", "rcv1", "usps", "german.numer"},
    "natole2020-t3.2": _CH4, "natole2020-t4.2": _CH4, "natole2020-t5.2": _CH4 - {"news20"},
    "natole2020-t6.3": _CH4 | {"alpha", "beta", "ionosphere", "svmguide3"},
    "natole2020-t6.4": {"arrhythmia", "australian", "breastw", "cod-rna", "mammography",
                        "spambase", "thyroid", "webspam"},
}
# (#inst, #feat) as published (T0.1, T0.4, T1.1 train+val+test, T4.8, T4.9); cod-rna: LIBSVM's 8
PUBLISHED = {
    "fourclass": (862, 2), "usps": (9298, 256), "letter": (15000, 16), "magic04": (19020, 10),
    "w8a": (49749, 300), "kddcup04": (50000, 65), "mnist": (60000, 780),
    "connect-4": (67557, 126), "acoustic": (78823, 50), "ijcnn1": (141691, 22),
    "epsilon": (400000, 2000), "covtype": (581012, 54), "covtype.binary": (581012, 54),
    "sector": (9619, 55197), "sector.lvr": (9619, 55197), "news20": (15935, 62061),
    "news20.binary": (19996, 1355191), "rcv1v2": (23149, 47236), "ecml2012": (456886, 98519),
    "higgs": (11000000, 28), "real-sim": (72309, 20958), "alpha": (500000, 500),
    "beta": (500000, 500), "ionosphere": (351, 34), "svmguide3": (1243, 21),
    "arrhythmia": (452, 274), "australian": (690, 14), "breastw": (683, 9),
    "cod-rna": (59535, 8), "mammography": (11183, 6), "spambase": (4601, 57),
    "thyroid": (3772, 6), "webspam": (350000, 254),
}


def _write(path, text: bytes) -> str:
    """Write ``text`` compressed by the suffix of ``path``; return its sha256."""
    pack = {".bz2": bz2.compress, ".gz": gzip.compress, ".xz": lzma.compress}
    path.write_bytes(pack.get(path.suffix, bytes)(text))
    return hashlib.sha256(text).hexdigest()


def _files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture
def toy(server):
    """A 60 x 5 synthetic dataset served as toy.bz2, registered with its checksum."""
    X, y = make_auc_problem(60, 5, random_state=0)
    sha = _write(server.root / "toy.bz2", libsvm_text(X, y))
    info = register_dataset(DatasetInfo("toy", server.url + "toy.bz2", 60, 5, "+1 as given",
                                        sha256=sha))
    return info, X, y


# --------------------------------------------------------------------------- bundled data

@pytest.mark.parametrize("obj", [DatasetInfo, list_datasets, dataset_info, register_dataset,
                                 get_data_home, load, fetch, make_preprocessor, preprocess,
                                 binarize, make_auc_problem, make_drift_stream])
def test_public_docstrings_document_every_parameter(obj):
    doc = inspect.getdoc(obj)
    section = re.split(r"\n\w+\n-+\n", doc.split("Parameters\n----------\n")[1])[0]
    documented = [n for names in re.findall(r"^(\w+(?:, \w+)*) :", section, flags=re.M)
                  for n in names.split(", ")]
    assert documented == [p for p in inspect.signature(obj).parameters if p != "self"]
    assert "Returns\n-------" in doc or obj is DatasetInfo


def test_load_bundled_german():
    X, y = load("german.numer")
    assert X.shape == (1000, 24) and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.dtype == np.int64 and set(np.unique(y)) == {-1, 1} and (y == 1).sum() == 300
    text = bz2.decompress((BUNDLED_DIR / "german.numer.bz2").read_bytes())
    assert hashlib.sha256(text).hexdigest() == dataset_info("german.numer").sha256
    assert (BUNDLED_DIR / "LICENSE.md").is_file()
    Xs, ys = load("german", return_sparse=True)  # the papers' name is an alias
    assert sp.isspmatrix_csr(Xs) and Xs.has_sorted_indices and Xs.dtype == np.float64
    assert np.array_equal(Xs.toarray(), X) and np.array_equal(ys, y)


def test_load_errors_say_what_to_do():
    with pytest.raises(ValueError, match=r"not bundled.*fetch\('a9a'\)"):
        load("a9a")
    with pytest.raises(ValueError, match="Did you mean 'german.numer'.*fetch"):
        load("german.numr")
    with pytest.raises(TypeError, match="return_sparse"):
        load("german.numer", return_sparse="yes")


# --------------------------------------------------------------------------- registry

def test_registry_records_are_complete():
    records = list_datasets()
    assert [r.name for r in records] == sorted(r.name for r in records)
    for info in records:
        assert isinstance(info, DatasetInfo) and info.url.startswith("http")
        assert info.n_samples > 0 and info.n_features > 0 and info.positive_class
        assert set(info.papers) <= set(CONFIG_IDS) and isinstance(info.sparse, bool)
        assert info.filename and info.binarize in (None, *BINARIZATION_SCHEMES)
        assert info.bundled == (info.name == "german.numer")
    with pytest.raises(FrozenInstanceError):
        records[0].n_samples = 1


def test_registry_has_the_mirror_datasets_exactly():
    for name, (n, d, sha) in MIRROR.items():
        info = dataset_info(name)
        assert (info.n_samples, info.n_features, info.sha256) == (n, d, sha), name
        assert info.filename == f"{name}.bz2" and info.sha256_of == "mirror"
    for name in ("sylva", "mnist5k", "shuttle"):
        assert dataset_info(name).papers == ()
    assert "3175" in dataset_info("splice").notes


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_registry_covers_every_paper_table(config):
    assert {d.name for d in list_datasets(paper=config)} == TABLES[config]


def test_registry_sizes_urls_and_binarisation_as_published():
    for name, shape in PUBLISHED.items():
        assert (dataset_info(name).n_samples, dataset_info(name).n_features) == shape, name
    libsvm = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
    for info in list_datasets():
        if info.binarize is not None:  # multi-class data: LIBSVM's multiclass collection
            assert info.url.startswith(libsvm + "multiclass/"), info.name
        elif info.format == "libsvm" and info.sha256_of == "download":
            assert info.url.startswith(libsvm + "binary/"), info.name
    assert dataset_info("covtype").binarize == "random-half"
    assert dataset_info("sector.lvr").binarize == "largest-vs-rest"
    assert dataset_info("usps").extra_urls == (libsvm + "multiclass/usps.t.bz2",)
    assert dataset_info("news20.binary").sparse and not dataset_info("diabetes").sparse


def test_dataset_info_names_and_typos():
    with pytest.raises(ValueError, match="Unknown dataset 'diabets'. Did you mean 'diabetes'"):
        dataset_info("diabets")
    with pytest.raises(ValueError, match="'covtype'"):
        dataset_info("covtyp")
    assert dataset_info("german").name == "german.numer"
    assert dataset_info("HIGGS").name == "higgs" and dataset_info("A9A").name == "a9a"
    assert dataset_info("covtype_binary").name == "covtype.binary"
    assert dataset_info("rcv1_binary").name == "rcv1"
    with pytest.raises(TypeError, match="str"):
        dataset_info(3)
    with pytest.raises(ValueError, match="Unknown config id"):
        list_datasets(paper="gao2013")


def test_register_dataset_validates():
    info = DatasetInfo("mine", "https://example.org/mine.bz2", 10, 3, "+1")
    assert register_dataset(info) is info and dataset_info("mine") is info
    assert info.filename == "mine.bz2"
    with pytest.raises(ValueError, match="already registered.*replace=True"):
        register_dataset(info)
    register_dataset(replace(info, n_samples=11), replace=True)
    assert dataset_info("mine").n_samples == 11
    with pytest.raises(TypeError, match="DatasetInfo"):
        register_dataset({"name": "x"})
    bad = [dict(url="ftp://x"), dict(n_samples=0), dict(papers=("gao2014",)),
           dict(sha256="abc"), dict(format="csv"), dict(binarize="halves"),
           dict(name="../x"), dict(sha256="0" * 64, extra_urls=("https://example.org/b",))]
    for change in bad:
        with pytest.raises(ValueError, match="DatasetInfo"):
            replace(info, **change)


def test_get_data_home(tmp_path, monkeypatch):
    assert get_data_home() == tmp_path / "cache" and (tmp_path / "cache").is_dir()
    assert get_data_home(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert (tmp_path / "a" / "b").is_dir()
    monkeypatch.delenv("AUCOPT_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert get_data_home() == tmp_path / "home" / ".cache" / "aucopt"
    assert get_data_home("~/x") == tmp_path / "home" / "x"


# --------------------------------------------------------------------------- fetch over HTTP

def test_fetch_downloads_verifies_and_caches(toy, server, isolated, caplog):
    info, X, y = toy
    with caplog.at_level(logging.INFO, logger="aucopt.datasets"):
        X1, y1 = fetch("toy")
    assert "Downloading " + info.url in caplog.text
    assert isinstance(X1, np.ndarray) and X1.flags.c_contiguous and y1.dtype == np.int64
    assert np.allclose(X1, X) and np.array_equal(y1, y)
    download, npz = _files(isolated)  # downloads/KEY/FILE: KEY a hash of the address
    assert re.fullmatch(r"downloads/[0-9a-f]{12}/toy\.bz2", download) and npz == "toy.npz"
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="aucopt.datasets"):
        X2, _ = fetch("toy", return_sparse=True)  # parsed cache: no second request
    assert "parsed cache" in caplog.text
    assert sp.isspmatrix_csr(X2) and np.allclose(X2.toarray(), X)
    (isolated / "toy.npz").unlink()
    X3, _ = fetch("toy")  # the raw download in the cache is reused
    assert np.allclose(X3, X) and server.requests == {"/toy.bz2": 1}


def test_fetch_german_slice_over_http_gz(server):
    text = b"".join(bz2.decompress((BUNDLED_DIR / "german.numer.bz2").read_bytes())
                    .splitlines(keepends=True)[:150])
    sha = _write(server.root / "german150.gz", text)
    register_dataset(DatasetInfo("german150", server.url + "german150.gz", 150, 24,
                                 "+1 = bad credit", sha256=sha))
    X, y = fetch("german150")
    Xg, yg = load("german.numer")
    assert np.array_equal(X, Xg[:150]) and np.array_equal(y, yg[:150])


def test_fetch_rejects_a_corrupted_download_and_recovers(toy, server, isolated):
    info, X, _ = toy
    good = (server.root / "toy.bz2").read_bytes()
    text = bytearray(bz2.decompress(good))
    text[5] = ord("9") if text[5] != ord("9") else ord("8")  # one altered byte
    (server.root / "toy.bz2").write_bytes(bz2.compress(bytes(text)))
    with pytest.raises(DatasetIntegrityError, match=r"toy.bz2 failed verification.*sha256.*"
                       rf"expected {info.sha256}, got [0-9a-f]{{64}}.*removed from the cache"
                       r".*Retry"):
        fetch("toy")
    assert _files(isolated) == []
    (server.root / "toy.bz2").write_bytes(good)  # the server is fixed: the retry succeeds
    assert np.allclose(fetch("toy")[0], X) and server.requests == {"/toy.bz2": 2}


def test_fetch_checks_the_shape_without_a_checksum(toy, server, isolated):
    info, _, _ = toy
    register_dataset(replace(info, sha256=None, n_samples=61), replace=True)
    with pytest.raises(DatasetIntegrityError, match="number of rows: expected 61, got 60"):
        fetch("toy")
    assert _files(isolated) == []
    (server.root / "page.html").write_text("<html><body>Not here</body></html>")
    register_dataset(replace(info, sha256=None, url=server.url + "page.html"), replace=True)
    with pytest.raises(DatasetIntegrityError, match="not a readable LIBSVM file"):
        fetch("toy")
    register_dataset(replace(info, sha256="0" * 64), replace=True)
    assert fetch("toy", verify=False)[0].shape == (60, 5)  # verify=False skips the checks
    # ... and keeps no parsed cache, which a checked call would have taken for checked data
    assert not (isolated / "toy.npz").exists()
    with pytest.raises(DatasetIntegrityError, match="sha256"):
        fetch("toy")
    # a checksum of the mirror's serialisation does not apply to the official download
    register_dataset(replace(info, sha256="0" * 64, sha256_of="mirror"), replace=True)
    assert fetch("toy")[0].shape == (60, 5)


def test_fetch_404_and_cut_short_downloads_are_clear_errors(toy, server, isolated):
    info, _, _ = toy
    register_dataset(replace(info, url=server.url + "missing.bz2"), replace=True)
    with pytest.raises(DatasetDownloadError, match=r"Could not download http://127.0.0.1:\d+/"
                       r"missing.bz2: HTTP error 404.*AUCOPT_DATA_MIRROR"):
        fetch("toy")
    server.truncated.add("/toy.bz2")
    register_dataset(info, replace=True)
    with pytest.raises(OSError, match="cut short"):
        fetch("toy")
    assert _files(isolated) == []  # no .part file left behind


def test_fetch_appends_extra_files_and_maps_labels(server):
    X1, _ = make_auc_problem(30, 4, random_state=1)
    X2, _ = make_auc_problem(20, 4, random_state=2)
    y1, y2 = np.r_[np.ones(10), 2 * np.ones(20)], np.r_[np.ones(5), 2 * np.ones(15)]
    _write(server.root / "part.xz", libsvm_text(X1, y1))
    _write(server.root / "part.t", libsvm_text(X2, y2))
    info = register_dataset(DatasetInfo("parts", server.url + "part.xz", 50, 4, "+1 = label 2",
                                        extra_urls=(server.url + "part.t",)))
    X, y = fetch("parts")
    assert np.allclose(X, np.vstack([X1, X2]))
    assert np.array_equal(y, np.where(np.r_[y1, y2] == 2, 1, -1))  # larger label -> +1
    register_dataset(replace(info, name="parts1", positive_label=1.0))
    assert np.array_equal(fetch("parts1")[1], -y)
    assert server.requests == {"/part.xz": 1, "/part.t": 1}  # files shared by both records


def test_fetch_multiclass_keeps_labels_for_binarize(server):
    X, _ = make_auc_problem(70, 3, random_state=3)
    labels = np.arange(70) % 7 + 1
    _write(server.root / "seven.bz2", libsvm_text(X, labels))
    register_dataset(DatasetInfo("seven", server.url + "seven.bz2", 70, 3, "7 classes",
                                 binarize="random-half"))
    _, y = fetch("seven")
    assert y.dtype == np.int64 and np.array_equal(y, labels)
    assert (binarize(y, "random-half", random_state=0) == 1).sum() == 30


def test_fetch_multilabel_takes_the_largest_label(server):
    (server.root / "ml.svm").write_text("1,3 1:0.5\n3 2:1\n2 1:1\n3,2 2:0.25\n")
    register_dataset(DatasetInfo("ml", server.url + "ml.svm", 4, 2, "largest label",
                                 format="libsvm-multilabel", sparse=True))
    X, y = fetch("ml")
    assert sp.isspmatrix_csr(X) and np.array_equal(y, [1, 1, -1, 1])


def test_fetch_from_a_mirror(toy, server, isolated, tmp_path, monkeypatch, caplog):
    info, X, _ = toy
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy-copy.bz2").write_bytes((server.root / "toy.bz2").read_bytes())
    entry = {"file": "toy-copy.bz2", "n_samples": 60, "n_features": 5,
             "sha256_uncompressed": info.sha256}
    (mirror / "MANIFEST.json").write_text(json.dumps({"toy": entry}))
    monkeypatch.setenv("AUCOPT_DATA_MIRROR", str(mirror))
    with caplog.at_level(logging.INFO, logger="aucopt.datasets"):
        X1, _ = fetch("toy", download=False)
    assert np.allclose(X1, X) and not server.requests and "copied from the mirror" in caplog.text
    assert _files(isolated) == ["toy.bz2", "toy.npz"]
    # a damaged mirror file: clear error naming the mirror; the cache copy is dropped
    (isolated / "toy.npz").unlink()
    (isolated / "toy.bz2").unlink()
    entry["sha256_uncompressed"] = "1" * 64
    (mirror / "MANIFEST.json").write_text(json.dumps({"toy": entry}))
    with pytest.raises(DatasetIntegrityError, match="sha256.*mirror file .*toy-copy.bz2"):
        fetch("toy")
    assert _files(isolated) == [] and (mirror / "toy-copy.bz2").is_file()


def test_a_mirror_whose_manifest_contradicts_the_registry_is_refused_at_once(
        server, isolated, tmp_path):
    """The manifest's digest was checked and the registry's ignored: the first fetch passed,
    the next read of the cached copy failed the registry's digest and deleted it."""
    X, y = make_auc_problem(40, 3, random_state=1)
    mirror = tmp_path / "other-version"
    mirror.mkdir()
    listed = _write(mirror / "vers.bz2", libsvm_text(X, y))
    registered = hashlib.sha256(libsvm_text(X[:, ::-1], y)).hexdigest()  # another version
    register_dataset(DatasetInfo("vers", server.url + "vers.bz2", 40, 3, "two versions",
                                 sha256=registered, sha256_of="mirror"))
    (mirror / "MANIFEST.json").write_text(json.dumps(
        {"vers": {"file": "vers.bz2", "sha256_uncompressed": listed}}))
    with pytest.raises(DatasetIntegrityError, match=f"MANIFEST.json .*{listed}.*registry "
                       f"{registered}"):
        fetch("vers", mirror=mirror, download=False)
    assert _files(isolated) == [] and not server.requests


def test_fetch_mirror_argument_without_manifest(toy, server, tmp_path):
    mirror = tmp_path / "plain"
    mirror.mkdir()
    (mirror / "toy.bz2").write_bytes((server.root / "toy.bz2").read_bytes())
    assert fetch("toy", mirror=mirror, download=False)[0].shape == (60, 5)
    with pytest.raises(DatasetNotAvailableError, match="mirror directory .* does not exist"):
        fetch("toy", mirror=tmp_path / "nowhere", data_home=tmp_path / "other")


def test_fetch_from_a_mirror_file_with_an_upper_case_suffix(toy, server, isolated, tmp_path):
    """toy.BZ2 was copied into the cache without its suffix and read as plain text (an
    integrity error blaming the mirror)."""
    mirror = tmp_path / "upper"
    mirror.mkdir()
    (mirror / "toy.BZ2").write_bytes((server.root / "toy.bz2").read_bytes())
    (mirror / "MANIFEST.json").write_text(json.dumps({"toy": {"file": "toy.BZ2"}}))
    assert fetch("toy", mirror=mirror, download=False)[0].shape == (60, 5)
    assert _files(isolated) == ["toy.bz2", "toy.npz"]


def test_a_mirror_file_in_other_case_and_a_digest_in_upper_case_hex_are_accepted(
        toy, server, isolated, tmp_path):
    """NAME.BZ2 without a manifest entry was not found, and a correct digest written in
    upper-case hex was refused (and the copy deleted)."""
    info, _, _ = toy
    mirror = tmp_path / "cased"
    mirror.mkdir()
    (mirror / "TOY.BZ2").write_bytes((server.root / "toy.bz2").read_bytes())
    assert fetch("toy", mirror=mirror, download=False)[0].shape == (60, 5)
    for name in _files(isolated):
        (isolated / name).unlink()
    (mirror / "MANIFEST.json").write_text(json.dumps(
        {"toy": {"file": "TOY.BZ2", "sha256_uncompressed": info.sha256.upper()}}))
    assert fetch("toy", mirror=mirror, download=False)[0].shape == (60, 5)


def test_fetch_without_download_says_where_it_looked(toy, server, isolated):
    info, _, _ = toy
    with pytest.raises(DatasetNotAvailableError, match=rf"download=False. Looked in the cache "
                       rf"{isolated}.*AUCOPT_DATA_MIRROR.*{info.url}") as err:
        fetch("toy", download=False)
    assert isinstance(err.value, FileNotFoundError) and not server.requests


def test_fetch_formats_it_cannot_read(isolated):
    with pytest.raises(DatasetNotAvailableError, match="'uci-csv'.*Convert it to LIBSVM"):
        fetch("spambase")
    register_dataset(replace(dataset_info("spambase"), n_samples=40), replace=True)
    X, y = make_auc_problem(40, 57, random_state=0)  # a LIBSVM copy placed by hand is used
    _write(isolated / "spambase.bz2", libsvm_text(X, y))
    assert fetch("spambase", download=False)[0].shape == (40, 57)


def test_unreadable_parsed_cache_is_rebuilt(toy, isolated, caplog):
    info, X, _ = toy
    fetch("toy")
    (isolated / "toy.npz").write_bytes(b"not a zip file")
    with caplog.at_level(logging.WARNING, logger="aucopt.datasets"):
        assert np.allclose(fetch("toy")[0], X)
    assert "unreadable parsed cache" in caplog.text
    assert np.allclose(np.load(isolated / "toy.npz", allow_pickle=False)["data"],
                       X[X != 0])


def test_parsed_cache_is_read_without_ast_from_threads(toy, isolated, monkeypatch, caplog):
    """numpy parses .npy headers with ast.literal_eval, which CPython 3.11 does not make safe
    in threads (gh-106905, tests/test_threads.py): the cache's headers are matched instead."""
    info, X, y = toy
    fetch("toy")
    monkeypatch.setattr(ast, "literal_eval", None)
    with caplog.at_level(logging.WARNING, logger="aucopt.datasets"), ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: fetch("toy", download=False), range(8)))
    assert np.allclose(got[0][0], X)
    assert all(np.array_equal(Xk, got[0][0]) and np.array_equal(yk, got[0][1]) for Xk, yk in got)
    assert "unreadable" not in caplog.text


def test_fetch_bundled_needs_no_cache(isolated):
    X, y = fetch("german")
    assert X.shape == (1000, 24) and not isolated.exists()


# --------------------------------------------------------------------------- preprocessing

def test_minmax_scales_training_columns_to_exactly_unit_interval():
    X, _ = make_auc_problem(300, 6, random_state=0)
    Xt = make_preprocessor("minmax").fit_transform(X)
    assert np.array_equal(Xt.max(0), np.ones(6)) and np.array_equal(Xt.min(0), -np.ones(6))
    train, test = preprocess(X[:100], X[100:], "minmax")  # fitted on the training part only
    assert train.min() == -1 and train.max() == 1 and (test.min() < -1 or test.max() > 1)
    S = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    St = make_preprocessor("minmax").fit_transform(S)  # CSR: max-abs scaling keeps zeros
    assert sp.issparse(St) and St.nnz == S.nnz
    assert np.allclose(abs(St).max(0).toarray(), 1) and abs(St).max() <= 1


def test_row_schemes_give_unit_norms_and_keep_zero_rows_finite():
    X, _ = make_auc_problem(50, 4, random_state=1)
    X[3] = 0.0
    X[4] = 0.1  # constant row: zero after centring
    for scheme in ("l2-rows", "center-l2-rows"):
        Xt = make_preprocessor(scheme).fit_transform(X)
        norms = np.linalg.norm(Xt, axis=1)
        assert np.all(np.isfinite(Xt)) and norms[3] == 0
        keep = np.delete(norms, [3, 4] if scheme == "center-l2-rows" else [3])
        assert np.allclose(keep, 1)
    centred = make_preprocessor("center-l2-rows").fit_transform(X)
    assert np.allclose(centred.mean(1), 0) and not centred[4].any()
    S = make_preprocessor("l2-rows").fit_transform(sp.csr_matrix(X))
    assert sp.issparse(S) and np.allclose(sp.linalg.norm(S, axis=1), np.where(
        np.arange(50) == 3, 0, 1))
    for call in (lambda t: t.fit(sp.csr_matrix(X)),
                 lambda t: t.fit(X).transform(sp.csr_matrix(X))):
        with pytest.raises(TypeError, match="use 'l2-rows' for sparse input"):
            call(make_preprocessor("center-l2-rows"))


def test_minmax_l2_rows_scales_with_training_ranges_then_gives_unit_rows():
    rng = np.random.default_rng(5)
    # raw-data-like columns: one with a huge range would dominate plain unit-norm rows
    X = np.column_stack([rng.uniform(0, 800, 60), rng.uniform(0, 2, 60), rng.integers(1, 5, 60)])
    X[0], X[1] = [0.0, 0.0, 1.0], [800.0, 2.0, 4.0]  # the training ranges
    X[7] = [400.0, 1.0, 2.5]  # the midpoint of every training range: zero after scaling
    train, test = X[:40], X[40:] * 1.5  # test rows beyond the training ranges
    t = make_preprocessor("minmax-l2-rows").fit(train)
    Xt, Tt = t.transform(train), t.transform(test)
    ranges = make_preprocessor("minmax").fit(train).transform
    expected = ranges(test) / np.linalg.norm(ranges(test), axis=1, keepdims=True)
    assert np.allclose(Tt, expected)  # the ranges come from the training part only
    assert not np.allclose(Tt, make_preprocessor("minmax-l2-rows").fit_transform(test))
    norms = np.linalg.norm(Xt, axis=1)
    assert np.all(np.isfinite(Xt)) and norms[7] == 0 and not Xt[7].any()
    assert np.allclose(np.delete(norms, 7), 1) and np.allclose(np.linalg.norm(Tt, axis=1), 1)
    # plain l2-rows keeps almost nothing but the large column; this scheme keeps all three
    assert np.median(make_preprocessor("l2-rows").fit_transform(train)[:, 0]) > 0.99
    assert np.median(np.abs(Xt[:, 1])) > 0.2
    S = sp.csr_matrix(np.where(X > 300, X, 0.0))  # CSR: max-abs scaling keeps zeros, then rows
    St = make_preprocessor("minmax-l2-rows").fit_transform(S)
    assert sp.issparse(St) and St.nnz == S.nnz
    assert np.allclose(St.toarray(), make_preprocessor("l2-rows").fit_transform(
        make_preprocessor("minmax").fit_transform(S)).toarray())
    assert np.allclose(sp.linalg.norm(St, axis=1)[np.diff(S.indptr) > 0], 1)
    assert preprocess(train, test, "minmax-l2-rows")[1].shape == test.shape


def test_standard_none_clone_and_unknown_scheme():
    X, _ = make_auc_problem(100, 3, random_state=2)
    Xt = make_preprocessor("standard").fit_transform(X)
    assert np.allclose(Xt.mean(0), 0) and np.allclose(Xt.std(0), 1)
    S = make_preprocessor("standard").fit_transform(sp.csr_matrix(X))  # no centring
    assert sp.issparse(S) and np.allclose(S.toarray(), X / X.std(0))
    assert np.array_equal(make_preprocessor("none").fit_transform(X), X)
    assert sp.issparse(make_preprocessor("none").fit_transform(sp.csr_matrix(X)))
    for scheme in PREPROCESSING_SCHEMES:
        est = make_preprocessor(scheme)
        assert est is not make_preprocessor(scheme)
        assert np.allclose(clone(est).fit(X).transform(X), est.fit_transform(X))
        # every scheme names its output columns ("none" had no get_feature_names_out)
        assert est.get_feature_names_out().tolist() == ["x0", "x1", "x2"]


def test_minmax_spans_the_interval_when_a_range_overflows():
    """max - min beyond float64 (columns of +-1e308) made the column NaN."""
    X = np.array([[-1e308, 1.0], [1e308, 2.0], [0.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scikit-learn's range, at fit
        scaler = make_preprocessor("minmax").fit(X)
    np.testing.assert_array_equal(scaler.transform(X), [[-1, -1], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match="Unknown preprocessing scheme 'zscore'.*minmax"):
        make_preprocessor("zscore")


# --------------------------------------------------------------------------- synthetic data

def test_make_auc_problem_shapes_counts_and_determinism():
    X, y = make_auc_problem(101, 7, pos_rate=0.25, random_state=3)
    assert X.shape == (101, 7) and X.dtype == np.float64 and y.dtype == np.int64
    assert (y == 1).sum() == round(0.25 * 101) and set(np.unique(y)) == {-1, 1}
    X2, y2 = make_auc_problem(101, 7, pos_rate=0.25, random_state=3)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    X3, _ = make_auc_problem(101, 7, pos_rate=0.25, random_state=np.random.default_rng(3))
    assert np.array_equal(X, X3) and not np.array_equal(X, make_auc_problem(
        101, 7, pos_rate=0.25, random_state=4)[0])
    assert (make_auc_problem(10, 2, pos_rate=0.001)[1] == 1).sum() == 1  # one of each class
    assert (make_auc_problem(10, 2, pos_rate=0.999)[1] == -1).sum() == 1
    S, _ = make_auc_problem(400, 10, sparsity=0.8, sparse_output=True, random_state=0)
    assert sp.isspmatrix_csr(S) and S.has_sorted_indices and 0.15 < S.nnz / 4000 < 0.25


def test_make_auc_problem_auc_grows_with_separation():
    aucs = []
    for sep in (0.0, 0.5, 1.5, 3.0):
        X, y = make_auc_problem(3000, 5, separation=sep, random_state=4)
        mu = X[y > 0].mean(0) - X[y < 0].mean(0)  # the oracle (LDA) direction
        aucs.append(roc_auc_score(y, X @ np.linalg.solve(np.cov(X.T), mu)))
    assert abs(aucs[0] - 0.5) < 0.05 and aucs[0] < aucs[1] < aucs[2] < aucs[3]


@pytest.mark.parametrize("kwargs, match", [
    (dict(pos_rate=1.5), r"pos_rate must be a real number in \(0, 1\)"),
    (dict(pos_rate=0.0), "pos_rate"), (dict(separation=-1), "separation"),
    (dict(sparsity=1.0), "sparsity"), (dict(n_samples=1), "n_samples"),
    (dict(n_features=2.5), "n_features"),
])
def test_make_auc_problem_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_auc_problem(**{"n_samples": 10, "n_features": 2, **kwargs})


def test_make_auc_problem_rejects_bad_random_state():
    with pytest.raises(TypeError, match="random_state"):
        make_auc_problem(10, 2, random_state="seed")


# --------------------------------------------------------------------------- binarisation

def test_binarize_schemes():
    # K = 7 is odd (notes.md#binarisation): floor(7/2) classes positive
    y = np.repeat(np.arange(7), 3)
    b = binarize(y, "random-half", random_state=0)
    assert b.dtype == np.int64 and set(np.unique(b)) == {-1, 1} and (b == 1).sum() == 3 * 3
    assert np.array_equal(b, binarize(y, "random_half", random_state=0))
    assert np.array_equal(b, binarize(y, random_state=np.random.default_rng(0)))
    groupings = {tuple(binarize(y, "random-half", random_state=s)) for s in range(10)}
    assert len(groupings) > 1
    for c in range(7):  # every class is kept whole
        assert len(set(b[y == c])) == 1
    assert np.array_equal(binarize(y, "even-odd"), np.where(y % 2 == 0, 1, -1))
    y2 = np.array([0, 1, 1, 1, 2, 2, 2])  # ties go to the smallest label
    assert np.array_equal(binarize(y2, "largest-vs-rest"), np.where(y2 == 1, 1, -1))
    assert np.array_equal(binarize([5, 9], "random-half", random_state=0) == 1, [True, False]) \
        or np.array_equal(binarize([5, 9], "random-half", random_state=0) == 1, [False, True])


def test_binarize_errors():
    with pytest.raises(ValueError, match="Unknown binarisation scheme 'halves'"):
        binarize([1, 2, 3], "halves")
    with pytest.raises(ValueError, match="at least two classes"):
        binarize([1, 1, 1])
    with pytest.raises(ValueError, match="integer class labels"):
        binarize([0.5, 1.5], "even-odd")
    with pytest.raises(ValueError, match="one side"):
        binarize([2, 4, 6], "even-odd")
    with pytest.raises(TypeError, match="random_state"):
        binarize([1, 2, 3], random_state="x")


@parametrize_with_checks([make_preprocessor(s) for s in ("minmax", "standard", "robust",
                                                         "center-l2-rows", "l2-rows", "none")])
def test_preprocessors_pass_scikit_learn_checks(estimator, check):
    """The scalers take CSR (and keep it CSR) but said otherwise in their tags:
    check_estimator_sparse_tag failed, and a pipeline starting with them did not take
    sparse input by its tags."""
    check(estimator)
