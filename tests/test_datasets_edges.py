"""Edges of fetching datasets and of ``aucopt stream`` / ``aucopt datasets``: addresses with
a query string or a shared file name, interrupted downloads, records changed after a fetch,
aliases, multi-class data, output prefixes and the cache a command names.

Offline: a real HTTP server on 127.0.0.1, files in tmp_path, nothing else."""

import bz2
import hashlib
import http.client
import os
import re
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from aucopt.cli import app
from aucopt.datasets import (
    DatasetDownloadError,
    DatasetInfo,
    _registry,
    dataset_info,
    fetch,
    make_auc_problem,
    register_dataset,
)

from ._child_env import child_env
from ._dataset_fixtures import http_server, isolated_cache, libsvm_text  # noqa: F401

runner = CliRunner()


def _serve(server, path: str, X, y) -> str:
    """Serve ``X, y`` as LIBSVM text at ``path``; return the sha256 of the text."""
    text = libsvm_text(X, y)
    (server.root / path).parent.mkdir(parents=True, exist_ok=True)
    (server.root / path).write_bytes(bz2.compress(text) if path.endswith(".bz2") else text)
    return hashlib.sha256(text).hexdigest()


def _files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _dead_pid() -> int:
    """The id of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# --------------------------------------------------------------------------- fetch: addresses

def test_query_string_is_not_part_of_the_cached_file_name(server, isolated):
    """.../small.bz2?dl=1 is saved as small.bz2: decompressed, verified, reused."""
    X, y = make_auc_problem(40, 3, random_state=0)
    sha = _serve(server, "small.bz2", X, y)
    info = register_dataset(DatasetInfo("q", server.url + "small.bz2?dl=1", 40, 3, "+1",
                                        sha256=sha))
    assert info.filename == "small.bz2"  # (the mirror file name too)
    for _ in range(2):
        X1, y1 = fetch("q")
        assert np.allclose(X1, X) and np.array_equal(y1, y)
    (download,) = [f for f in _files(isolated) if f.startswith("downloads/")]
    assert download.endswith("/small.bz2") and server.requests == {"/small.bz2?dl=1": 1}


def test_same_file_name_at_two_addresses_is_cached_apart(server, isolated, tmp_path):
    """projA/train.svm and projB/train.svm: each dataset gets its own data."""
    X, y = make_auc_problem(50, 2, random_state=1)
    for proj, sign in (("projA", 1), ("projB", -1)):
        _serve(server, f"{proj}/train.svm", X, sign * y)
        register_dataset(DatasetInfo(proj, f"{server.url}{proj}/train.svm", 50, 2, "+1"))
    assert np.array_equal(fetch("projA")[1], y)
    assert np.array_equal(fetch("projB")[1], -y)
    assert np.array_equal(fetch("projB", data_home=tmp_path / "fresh")[1], -y)
    assert len([f for f in _files(isolated) if f.endswith("/train.svm")]) == 2


def test_download_of_an_earlier_layout_is_moved_only_when_unambiguous(server, isolated,
                                                                      tmp_path, monkeypatch):
    """downloads/FILE of an earlier aucopt: reused for a built-in record's address (no new
    download), never when another known address serves a file of that name."""
    X, y = make_auc_problem(30, 2, random_state=2)
    builtin = DatasetInfo("builtin", server.url + "one/data.svm", 30, 2, "+1")
    monkeypatch.setattr(_registry, "_RECORDS", [*_registry._RECORDS, builtin])
    register_dataset(builtin)
    _serve(server, "one/data.svm", X, y)
    for home, legacy_y in ((isolated, y), (tmp_path / "second", -y)):
        (home / "downloads").mkdir(parents=True)
        (home / "downloads" / "data.svm").write_bytes(libsvm_text(X, legacy_y))
    assert np.array_equal(fetch("builtin")[1], y) and not server.requests
    npz, moved = _files(isolated)  # moved to downloads/KEY/data.svm
    assert npz == "builtin.npz" and re.fullmatch(r"downloads/[0-9a-f]{12}/data\.svm", moved)
    # another record's address ends in data.svm too: the old file could be either's
    register_dataset(DatasetInfo("other", server.url + "two/data.svm", 30, 2, "+1"))
    assert np.array_equal(fetch("builtin", data_home=tmp_path / "second")[1], y)
    assert server.requests == {"/one/data.svm": 1}
    assert (tmp_path / "second" / "downloads" / "data.svm").is_file()


# --------------------------------------------------------------------------- fetch: part files

def test_interrupted_download_leaves_no_part_file(server, isolated, monkeypatch):
    """Ctrl-C in the middle of a download removes its partial file."""
    X, y = make_auc_problem(40, 3, random_state=3)
    _serve(server, "big.svm", X, y)
    register_dataset(DatasetInfo("big", server.url + "big.svm", 40, 3, "+1"))

    read, calls = http.client.HTTPResponse.read, []

    def interrupted(response, amt=None):  # 100 bytes, then Ctrl-C
        calls.append(amt)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return read(response, 100)

    monkeypatch.setattr(http.client.HTTPResponse, "read", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fetch("big")
    assert len(calls) == 2 and _files(isolated) == [], _files(isolated)


def test_interrupted_parsed_cache_write_leaves_no_part_file(server, isolated, monkeypatch):
    X, y = make_auc_problem(40, 3, random_state=4)
    _serve(server, "npz.svm", X, y)
    register_dataset(DatasetInfo("npz", server.url + "npz.svm", 40, 3, "+1"))

    def interrupted(fh, **arrays):
        fh.write(b"PK partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fetch("npz")
    assert not [f for f in _files(isolated) if f.endswith(".part")], _files(isolated)


def test_success_removes_only_the_parts_of_processes_that_are_gone(server, isolated):
    """A later successful fetch removes the parts of dead processes; never the part of a
    live process, nor a recent one (a process on another machine sharing the cache)."""
    X, y = make_auc_problem(40, 3, random_state=5)
    _serve(server, "p.svm", X, y)
    register_dataset(DatasetInfo("p", server.url + "p.svm", 40, 3, "+1"))
    fetch("p")
    (download,) = [isolated / f for f in _files(isolated) if f.endswith("p.svm")]
    download.unlink()
    (isolated / "p.npz").unlink()
    dead, old = _dead_pid(), time.time() - 86400  # a day: well past STALE_PART_SECONDS
    parts = {name: download.with_name(f"p.svm.{pid}.part") for name, pid in
             (("dead", dead), ("live", os.getppid()), ("recent", dead + 1000000))}
    parts["dead npz"] = isolated / f"p.npz.{dead}.part"
    for name, part in parts.items():
        part.write_bytes(b"partial")
        if name != "recent":
            os.utime(part, (old, old))
    assert np.array_equal(fetch("p")[1], y) and server.requests == {"/p.svm": 2}
    assert {name for name, part in parts.items() if part.exists()} == {"live", "recent"}


def test_cut_short_download_still_removes_its_part(server, isolated):
    X, y = make_auc_problem(40, 3, random_state=6)
    _serve(server, "cut.svm", X, y)
    server.truncated.add("/cut.svm")
    register_dataset(DatasetInfo("cut", server.url + "cut.svm", 40, 3, "+1"))
    with pytest.raises(DatasetDownloadError, match="cut short"):
        fetch("cut")
    assert _files(isolated) == []


# --------------------------------------------------------------------------- fetch: records

def test_changed_record_rebuilds_the_parsed_cache(server, isolated, tmp_path):
    """positive_label changed after a fetch: the labels follow the record, as on a fresh
    cache, from the raw download already in the cache."""
    X, _ = make_auc_problem(60, 2, random_state=7)
    labels = (np.arange(60) % 3 == 0).astype(int)  # file labels 0 / 1
    _serve(server, "pima", X, labels)
    register_dataset(DatasetInfo("pima", server.url + "pima", 60, 2, "+1 as given"))
    assert (fetch("pima")[1] == 1).sum() == 20
    register_dataset(replace(dataset_info("pima"), positive_label=0.0), replace=True)
    assert (fetch("pima")[1] == 1).sum() == 40
    assert (fetch("pima", data_home=tmp_path / "fresh")[1] == 1).sum() == 40
    assert server.requests == {"/pima": 2}  # one per cache: the raw file was reused


def test_a_stale_parsed_cache_that_cannot_be_removed_is_rebuilt_in_memory(server, isolated,
                                                                          monkeypatch):
    """On a read-only cache (here: every removal of a .npz refused, as the file system of a
    non-root user does), a parsed cache of an earlier record raised PermissionError
    instead of parsing the raw file again."""
    from pathlib import Path

    X, _ = make_auc_problem(60, 2, random_state=7)
    labels = (np.arange(60) % 3 == 0).astype(int)
    _serve(server, "pima", X, labels)
    register_dataset(DatasetInfo("pima", server.url + "pima", 60, 2, "+1 as given"))
    assert (fetch("pima")[1] == 1).sum() == 20
    unlink = Path.unlink

    def refused(path, *args, **kwargs):
        if path.suffix == ".npz":
            raise PermissionError(13, "Permission denied", str(path))
        return unlink(path, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", refused)
    register_dataset(replace(dataset_info("pima"), positive_label=0.0), replace=True)
    assert (fetch("pima")[1] == 1).sum() == 40


def test_parsed_cache_of_an_earlier_version_is_rebuilt(server, isolated):
    """A NAME.npz without the record's stamp (earlier aucopt) is parsed again."""
    X, y = make_auc_problem(30, 2, random_state=8)
    _serve(server, "old.svm", X, y)
    register_dataset(DatasetInfo("old", server.url + "old.svm", 30, 2, "+1"))
    fetch("old")
    with np.load(isolated / "old.npz") as z:
        arrays = {k: z[k] for k in z.files if k != "record"}
    arrays["y"] = -arrays["y"]  # what an older record made of the file
    np.savez(isolated / "old.npz", **arrays)
    assert np.array_equal(fetch("old")[1], y)


# --------------------------------------------------------------------------- aucopt stream

@pytest.mark.parametrize("name", ["german", "German.Numer"])
def test_stream_takes_aliases_and_other_letter_cases(name, tmp_path):
    result = runner.invoke(app, ["stream", name, "--baselines", "", "--limit", "200",
                                 "--out", str(tmp_path / "x"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "200 samples of german.numer" in result.output


def test_stream_keeps_rivers_exact_names():
    """Higgs and Shuttle are River's datasets; other spellings are the registry's."""
    from aucopt.cli._stream import _registered

    assert _registered("Higgs") is None and _registered("Shuttle") is None
    assert _registered("HIGGS").name == "higgs" and _registered("german").name == "german.numer"


def test_stream_refuses_multiclass_registered_data_naming_the_fix(server, isolated, tmp_path):
    """The record binarises by random-half: refused before any download, with the command
    that writes a binarised copy; a record without a scheme but more than two labels too."""
    X, _ = make_auc_problem(70, 3, random_state=9)
    _serve(server, "seven", X, np.arange(70) % 7)
    register_dataset(DatasetInfo("seven", server.url + "seven", 70, 3, "7 digits -> halves",
                                 binarize="random-half"))
    args = ["--baselines", "", "--no-progress", "--out", str(tmp_path / "o")]
    result = runner.invoke(app, ["stream", "seven", *args])
    assert result.exit_code == 1 and not server.requests
    assert "seven is a multi-class dataset" in result.output
    assert "binarize(y, 'random-half', random_state=0)" in result.output
    register_dataset(replace(dataset_info("seven"), binarize=None), replace=True)
    result = runner.invoke(app, ["stream", "seven", *args])
    assert result.exit_code == 1 and "multi-class" in result.output
    assert "one class only" not in result.output and not (tmp_path / "o.csv").exists()


def test_datasets_fetch_counts_classes_of_multiclass_data(server, isolated):
    X, _ = make_auc_problem(70, 3, random_state=10)
    _serve(server, "seven", X, np.arange(70) % 7)
    register_dataset(DatasetInfo("seven", server.url + "seven", 70, 3, "7 digits -> halves",
                                 binarize="random-half"))
    result = runner.invoke(app, ["datasets", "fetch", "seven"])
    assert result.exit_code == 0, result.output
    assert "70 x 3, 7 classes" in result.output and "positives" not in result.output
    assert f"cached in {isolated}" in result.output


def test_stream_out_prefix_keeps_its_dots(tmp_path):
    """run.lr0.1 and run.lr0.01 write their own files; run.csv means the prefix run."""
    common = ["stream", "german.numer", "--baselines", "", "--limit", "200", "--no-progress"]
    for prefix in ("run.lr0.1", "run.lr0.01", "plain.csv"):
        result = runner.invoke(app, [*common, "--out", str(tmp_path / prefix)])
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "plain.csv", "plain.png", "run.lr0.01.csv", "run.lr0.01.png", "run.lr0.1.csv",
        "run.lr0.1.png"]


def test_stream_makes_the_out_folder_only_when_writing(tmp_path):
    data = tmp_path / "positives.svm"
    data.write_text("".join(f"1 1:{i / 10}\n" for i in range(30)))
    out = tmp_path / "new" / "sub" / "p"
    result = runner.invoke(app, ["stream", str(data), "--no-progress", "--out", str(out)])
    assert result.exit_code == 1 and "one class only" in result.output
    assert not (tmp_path / "new").exists()
    (tmp_path / "afile").write_text("")
    result = runner.invoke(app, ["stream", str(data), "--no-progress",
                                 "--out", str(tmp_path / "afile" / "p")])
    assert result.exit_code == 1 and "is a file, not a folder" in result.output


# --------------------------------------------------------------------------- aucopt datasets

def test_datasets_fetch_of_bundled_data_names_no_cache(tmp_path, monkeypatch):
    """german.numer is bundled: no cache is needed, made or named."""
    (tmp_path / "not-a-dir").write_text("")
    for home in ("not-a-dir", "new-cache"):
        monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / home))
        result = runner.invoke(app, ["datasets", "fetch", "german"])
        assert result.exit_code == 0, result.output
        assert "german.numer: 1000 x 24, 300 positives" in result.output
        assert "bundled" in result.output and "cached" not in result.output
    assert not (tmp_path / "new-cache").exists()


def test_datasets_list_survives_a_reader_that_stops_early():
    """`aucopt datasets list | head -1`: exit 0, no broken-pipe error."""
    shell = f"'{sys.executable}' -m aucopt datasets list | head -1; exit ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                          env=child_env(), timeout=300)
    assert done.returncode == 0 and "Broken pipe" not in done.stderr, done.stderr
    assert done.stdout.split()[0] == _registry.list_datasets()[0].name
