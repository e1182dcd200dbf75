"""Cold start: what ``import aucopt`` and ``aucopt --help`` load, ``aucopt.warmup``.

Each check runs in a fresh interpreter (a subprocess), since this process has imported
everything already. No timing asserts: the modules loaded are what costs the time.
"""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import aucopt
from aucopt.cli import app

HEAVY = ("numba", "sklearn", "scipy", "aucopt.algorithms", "aucopt.linear_model")


def _loaded_after(code: str) -> set:
    probe = (f"import sys\n{code}\nimport json\n"
             f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_aucopt_loads_neither_numba_nor_scikit_learn():
    assert _loaded_after("import aucopt") == set()


def test_the_public_names_stay_reachable_and_listed():
    for name in ("make", "list_algorithms", "algorithm_info", "estimator_class", "warmup",
                 "kernel_cache_dir",
                 "get_config", "__version__"):
        assert name in dir(aucopt) and name in aucopt.__all__ or name == "__version__"
        assert getattr(aucopt, name) is not None
    assert "numba" in _loaded_after("import aucopt; aucopt.list_algorithms()")
    assert _loaded_after("from aucopt import get_config, config_context") == set()
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        aucopt.nope  # noqa: B018


def test_help_loads_no_algorithm():
    code = ("from typer.testing import CliRunner\nfrom aucopt.cli import app\n"
            "assert CliRunner().invoke(app, ['--help']).exit_code == 0")
    assert _loaded_after(code) & {"numba", "sklearn", "aucopt.algorithms"} == set()


def test_warmup_returns_the_seconds_per_algorithm():
    seconds = aucopt.warmup(["b-ls-svm", "uni-squ"], sparse=False)
    assert list(seconds) == ["b-ls-svm", "uni-squ"] and all(s >= 0 for s in seconds.values())
    assert list(aucopt.warmup("spam-l2")) == ["spam-l2"]
    with pytest.raises(ValueError, match="Unknown algorithm id 'spam'"):
        aucopt.warmup(["uni-squ", "spam"])


def test_warmup_takes_rows_through_the_compiled_calls_river_uses(monkeypatch):
    """River's learn_one and predict_proba_one run compiled functions that fit and
    partial_fit never call (the one-row path's lane call, the O(nnz) score): the warmup
    must call them, with the int32 rows River's column map makes, or a fresh process
    compiles them on its first rows."""
    from aucopt.algorithms._row_score import ScorePath
    from aucopt.algorithms._rowpath import RowPath

    seen = {"learn": [], "score": 0}
    learn, score = RowPath.learn, ScorePath.score

    def spy_learn(path, rows, y, t, rng=None):
        out = learn(path, rows, y, t, rng)
        seen["learn"].append((rows.indices.dtype.name, path.quick, out[1]))
        return out

    def spy_score(path, *args):
        seen["score"] += 1
        return score(path, *args)

    monkeypatch.setattr(RowPath, "learn", spy_learn)
    monkeypatch.setattr(ScorePath, "score", spy_score)
    aucopt.warmup(["uni-squ"], sparse=False)
    assert seen["score"] > 0
    # rows learnt in the lane's compiled call (typed, OK), with River's column type
    assert ("int32", True, 0) in seen["learn"]


def test_warmup_in_processes_returns_every_algorithm_in_order():
    """``jobs=2``: two new processes compile consecutive shares; the seconds come back for
    every id, in the order asked."""
    seconds = aucopt.warmup(["b-ls-svm", "uni-squ", "spam-l2"], sparse=False, jobs=2)
    assert list(seconds) == ["b-ls-svm", "uni-squ", "spam-l2"]
    assert all(s >= 0 for s in seconds.values())
    # the work ran in the other processes: a fresh one that asks for it loads no kernel itself
    code = ("import aucopt\nfrom aucopt._kernels import spam\n"
            "aucopt.warmup(['uni-squ', 'spam-l2'], sparse=False, jobs=2)\n"
            "print(len(spam.spam_epoch.signatures))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=900)
    assert done.stdout.split()[-1] == "0"
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        aucopt.warmup(["uni-squ"], jobs=0)


def test_warmup_command_names_the_cache(tmp_path, monkeypatch):
    from aucopt._warmup import kernel_cache_dir

    result = CliRunner().invoke(app, ["warmup", "b-ls-svm,uni-squ"])
    assert result.exit_code == 0, result.output
    assert "2 algorithms ready" in result.output and kernel_cache_dir() in result.output
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kernel_cache_dir() == str(tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    here = os.path.join(os.path.dirname(aucopt.__file__), "_kernels")
    if os.access(here, os.W_OK):
        assert kernel_cache_dir() == os.path.join(here, "__pycache__")


@pytest.mark.parametrize("ids", [",", " , ", ""])
def test_warmup_of_no_algorithm_is_refused(ids):
    """``aucopt warmup ,`` failed with ``max() arg is an empty sequence``; ``aucopt warmup
    ""`` warmed every id, as no argument does."""
    result = CliRunner().invoke(app, ["warmup", ids])
    assert result.exit_code == 1 and "no algorithm to warm up" in result.output, result.output
    with pytest.raises(ValueError, match="no algorithm to warm up"):
        aucopt.warmup([])
