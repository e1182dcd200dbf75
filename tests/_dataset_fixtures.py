"""Fixtures of the dataset tests: a private cache and registry, and a real HTTP server on
127.0.0.1 serving a folder (import them into a test module to use them: the fixtures are named
``isolated``, autouse, and ``server``)."""

import io

import pytest
from sklearn.datasets import dump_svmlight_file

from aucopt.datasets import _registry

from ._http_fixture import LocalHTTPServer


@pytest.fixture(autouse=True, name="isolated")
def isolated_cache(tmp_path, monkeypatch):
    """Private cache, no mirror, and a registry copy that the test may change."""
    monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / "cache"))
    monkeypatch.delenv("AUCOPT_DATA_MIRROR", raising=False)
    monkeypatch.setattr(_registry, "_REGISTRY", dict(_registry._REGISTRY))
    return tmp_path / "cache"


@pytest.fixture(name="server")
def http_server(tmp_path):
    (tmp_path / "www").mkdir()
    srv = LocalHTTPServer(tmp_path / "www")
    yield srv
    srv.close()


def libsvm_text(X, y) -> bytes:
    """The one-based LIBSVM text of ``X, y``."""
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=False)
    return buf.getvalue()
