"""Datasets: bundled data, the registry, fetching from a real local HTTP server, mirrors,
preprocessing, synthetic problems and binarisation. No network beyond 127.0.0.1."""

import bz2
import hashlib
import http.server
import json
import threading
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from sklearn.metrics import roc_auc_score

from aucopt.datasets import (
    CONFIG_IDS,
    binarize,
    dataset_info,
    fetch,
    list_datasets,
    load,
    make_auc_problem,
    make_preprocessor,
    preprocess,
    register_dataset,
)
from aucopt.datasets._fetch import BUNDLED_DIR, DatasetIntegrityError

MIRRORED = ["german.numer", "diabetes", "splice", "a9a", "a9a.t", "shuttle", "sylva", "mnist5k"]


def test_load_bundled_german():
    X, y = load("german.numer")
    assert X.shape == (1000, 24) and X.dtype == np.float64 and X.flags.c_contiguous
    assert (y == 1).sum() == 300 and set(np.unique(y)) == {-1, 1}
    text = bz2.open(BUNDLED_DIR / "german.numer.bz2").read()
    assert hashlib.sha256(text).hexdigest() == dataset_info("german.numer").sha256
    Xs, _ = load("german.numer", return_sparse=True)
    assert sp.isspmatrix_csr(Xs) and np.allclose(Xs.toarray(), X)


def test_load_rejects_non_bundled_and_suggests_fetch():
    with pytest.raises(ValueError, match="not bundled.*fetch\\('a9a'\\)"):
        load("a9a")


def test_registry_records():
    names = {d.name for d in list_datasets()}
    assert set(MIRRORED) <= names
    for info in list_datasets():
        assert info.url.startswith("http") and info.n_samples > 0 and info.n_features > 0
        assert set(info.papers) <= set(CONFIG_IDS)
    for config in CONFIG_IDS:  # every paper table has its datasets
        assert any(config in d.papers for d in list_datasets()), config
    assert dataset_info("german").name == "german.numer"  # the papers' spelling


def test_unknown_dataset_suggests_a_name():
    with pytest.raises(ValueError, match="Unknown dataset 'diabets'.*'diabetes'"):
        dataset_info("diabets")


class _Server:
    def __init__(self, root):
        counts = self.counts = {}

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def do_GET(self):  # noqa: N802 (http.server API)
                counts[self.path] = counts.get(self.path, 0) + 1
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    srv = _Server(root)
    srv.root = root
    yield srv
    srv.close()


def _fixture_file(path, n=60, d=5, seed=0):
    X, y = make_auc_problem(n, d, random_state=seed)
    dump_svmlight_file(X, y, str(path.with_suffix("")), zero_based=False)
    raw = path.with_suffix("").read_bytes()
    path.write_bytes(bz2.compress(raw))
    return hashlib.sha256(raw).hexdigest(), X, y


@pytest.fixture
def toy(server, tmp_path, monkeypatch):
    sha, X, y = _fixture_file(server.root / "toy.bz2")
    info = register_dataset(
        dataset_info("diabetes").__class__("toy-fixture", server.url + "toy.bz2", 60, 5,
                                           "+1", sha256=sha, filename="toy.bz2"),
        replace=True)
    monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / "cache"))
    monkeypatch.delenv("AUCOPT_DATA_MIRROR", raising=False)
    return info, X, y


def test_fetch_downloads_verifies_and_caches(toy, server, tmp_path):
    info, X, y = toy
    X1, y1 = fetch(info.name)
    assert np.allclose(X1, X) and np.array_equal(y1, y)
    X2, _ = fetch(info.name)  # parsed cache: no second request
    assert np.allclose(X2, X)
    assert server.counts == {"/toy.bz2": 1}
    assert (tmp_path / "cache" / "toy-fixture.npz").exists()


def test_fetch_corrupted_download_is_rejected_and_removed(toy, server, tmp_path):
    info, X, _ = toy
    good = (server.root / "toy.bz2").read_bytes()
    text = bytearray(bz2.decompress(good))
    text[5] = ord("9") if text[5] != ord("9") else ord("8")  # one altered byte
    (server.root / "toy.bz2").write_bytes(bz2.compress(bytes(text)))
    with pytest.raises(DatasetIntegrityError, match="sha256.*removed from the cache"):
        fetch(info.name)
    assert not any((tmp_path / "cache").iterdir())
    (server.root / "toy.bz2").write_bytes(good)  # the server is fixed: the retry succeeds
    X1, _ = fetch(info.name)
    assert np.allclose(X1, X)


def test_fetch_404_is_a_clear_error(toy, server):
    info, _, _ = toy
    register_dataset(replace(info, url=server.url + "missing.bz2"), replace=True)
    with pytest.raises(OSError, match="Could not download.*AUCOPT_DATA_MIRROR"):
        fetch(info.name)


def test_fetch_from_mirror(toy, server, tmp_path, monkeypatch):
    info, X, _ = toy
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy-fixture.bz2").write_bytes((server.root / "toy.bz2").read_bytes())
    (mirror / "MANIFEST.json").write_text(json.dumps({"toy-fixture": {"file": "toy-fixture.bz2"}}))
    monkeypatch.setenv("AUCOPT_DATA_MIRROR", str(mirror))
    X1, _ = fetch(info.name, download=False)
    assert np.allclose(X1, X) and server.counts == {}


def test_fetch_without_download_says_where_it_looked(toy):
    info, _, _ = toy
    with pytest.raises(FileNotFoundError, match="AUCOPT_DATA_MIRROR.*download"):
        fetch(info.name, download=False)


def test_non_libsvm_sources_explain_what_to_do():
    with pytest.raises(ValueError, match="convert it to LIBSVM"):
        fetch("spambase", download=False)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_minmax_scales_training_columns_to_unit_interval(fmt):
    X, _ = make_auc_problem(200, 6, random_state=0)
    X = X if fmt == "dense" else sp.csr_matrix(np.abs(X))
    Xt = make_preprocessor("minmax").fit_transform(X)
    Xt = Xt.toarray() if sp.issparse(Xt) else Xt
    assert np.allclose(Xt.max(0), 1.0) and Xt.min() >= -1.0 - 1e-12
    if fmt == "dense":
        assert np.allclose(Xt.min(0), -1.0)


def test_row_schemes_give_unit_norms_and_keep_zero_rows_finite():
    X, _ = make_auc_problem(50, 4, random_state=1)
    X[3] = 0.0
    X[4] = 2.5  # constant row: zero after centring
    for scheme in ("l2-rows", "center-l2-rows"):
        Xt = make_preprocessor(scheme).fit_transform(X)
        norms = np.linalg.norm(Xt, axis=1)
        assert np.all(np.isfinite(Xt)) and norms[3] == 0
        assert np.allclose(np.delete(norms, [3, 4] if scheme == "center-l2-rows" else [3]), 1)
    assert np.allclose(make_preprocessor("center-l2-rows").fit_transform(X).mean(1), 0)
    with pytest.raises(TypeError, match="l2-rows"):
        make_preprocessor("center-l2-rows").fit(X).transform(sp.csr_matrix(X))


def test_standard_and_none_and_preprocess():
    X, _ = make_auc_problem(100, 3, random_state=2)
    Xt = make_preprocessor("standard").fit_transform(X)
    assert np.allclose(Xt.mean(0), 0) and np.allclose(Xt.std(0), 1)
    assert sp.issparse(make_preprocessor("standard").fit_transform(sp.csr_matrix(X)))
    assert np.array_equal(make_preprocessor("none").fit_transform(X), X)
    train, test = preprocess(X[:60], X[60:], "minmax")
    assert train.shape == (60, 3) and test.shape == (40, 3)
    with pytest.raises(ValueError, match="Unknown preprocessing scheme"):
        make_preprocessor("zscore")


def test_make_auc_problem():
    X, y = make_auc_problem(101, 7, pos_rate=0.25, random_state=3)
    assert X.shape == (101, 7) and (y == 1).sum() == round(0.25 * 101)
    X2, y2 = make_auc_problem(101, 7, pos_rate=0.25, random_state=3)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    S, _ = make_auc_problem(400, 10, sparsity=0.8, sparse_output=True, random_state=0)
    assert sp.isspmatrix_csr(S) and 0.15 < S.nnz / 4000 < 0.25
    aucs = []
    for sep in (0.5, 1.5, 3.0):  # the least-squares direction ranks better as classes separate
        X, y = make_auc_problem(3000, 5, separation=sep, random_state=4)
        mu = X[y > 0].mean(0) - X[y < 0].mean(0)
        aucs.append(roc_auc_score(y, X @ np.linalg.solve(np.cov(X.T), mu)))
    assert aucs[0] < aucs[1] < aucs[2]
    with pytest.raises(ValueError, match="pos_rate"):
        make_auc_problem(10, 2, pos_rate=1.5)


def test_binarize():
    y = np.repeat(np.arange(7), 3)  # K = 7 is odd
    b = binarize(y, "random-half", random_state=0)
    assert set(np.unique(b)) == {-1, 1} and (b == 1).sum() == 3 * 3
    assert np.array_equal(b, binarize(y, "random-half", random_state=0))
    assert np.array_equal(binarize(y, "even-odd"), np.where(y % 2 == 0, 1, -1))
    y2 = np.array([0, 1, 1, 1, 2, 2])
    assert np.array_equal(binarize(y2, "largest-vs-rest"), np.where(y2 == 1, 1, -1))
    with pytest.raises(ValueError, match="Unknown scheme"):
        binarize(y, "halves")
