"""Global configuration and the fastmath kernel variants."""

import json
import subprocess
import sys
import threading

import numpy as np
import pytest
from numpy.testing import assert_allclose

import aucopt
from aucopt.datasets import get_data_home, make_auc_problem


def test_defaults_context_and_restore():
    assert aucopt.get_config() == {"fastmath": False, "data_home": None}
    with aucopt.config_context(fastmath=True):
        assert aucopt.get_config()["fastmath"] is True
        with aucopt.config_context(fastmath=False):
            assert aucopt.get_config()["fastmath"] is False
        assert aucopt.get_config()["fastmath"] is True
    assert aucopt.get_config()["fastmath"] is False


def test_bad_keys_and_values():
    with pytest.raises(TypeError, match="Unknown config keys"), aucopt.config_context(fast=1):
        pass
    with pytest.raises(TypeError, match="True or False"):
        aucopt.set_config(fastmath="yes")


def test_settings_are_thread_local():
    seen = []
    with aucopt.config_context(fastmath=True):
        thread = threading.Thread(target=lambda: seen.append(aucopt.get_config()["fastmath"]))
        thread.start()
        thread.join()
    assert seen == [False]


def test_data_home_setting(tmp_path):
    with aucopt.config_context(data_home=str(tmp_path / "cache")):
        assert get_data_home() == tmp_path / "cache"


@pytest.mark.parametrize("algorithm_id", ["spam-l2", "spam-net", "opauc", "opauc-r", "adaoam",
                                          "aogd", "vrspam-l2", "spdam"])
def test_fastmath_variant_agrees_with_the_plain_kernel(algorithm_id):
    X, y = make_auc_problem(400, 8, separation=1.5, random_state=0)
    plain = aucopt.make(algorithm_id, random_state=0).fit(X, y).decision_function(X)
    with aucopt.config_context(fastmath=True):
        fast = aucopt.make(algorithm_id, random_state=0).fit(X, y).decision_function(X)
    assert_allclose(fast, plain, rtol=1e-8, atol=1e-10)


_SCRIPT = """
import json, sys
import numpy as np
import aucopt
from aucopt.datasets import make_auc_problem
X, y = make_auc_problem(3000, 50, separation=1.0, random_state=1)
out = {}
for fast in sys.argv[1:]:
    with aucopt.config_context(fastmath=fast == "fast"):
        est = aucopt.make("spam-l2", random_state=0, max_iter=2).fit(X, y)
    out[fast] = est.coef_[0].tolist()
json.dump(out, sys.stdout)
"""


def test_variants_have_separate_cache_entries():
    """numba issue #6845: a cache shared by two flag variants would hand one the other's code.

    After the fastmath variant ran (and was cached), a new process running the plain kernel
    must still produce the plain kernel's exact bits."""
    def run(*modes):
        return json.loads(subprocess.run([sys.executable, "-c", _SCRIPT, *modes], check=True,
                                         capture_output=True, text=True).stdout)

    first = run("fast", "plain")
    again = run("plain")
    assert again["plain"] == first["plain"]  # bit-for-bit
    fast, plain = np.array(first["fast"]), np.array(first["plain"])
    assert_allclose(fast, plain, rtol=1e-8)
    assert not np.array_equal(fast, plain)  # the variant really reassociates


def test_fastmath_twins_call_the_plain_reductions():
    """Under fastmath the plain running sums vectorise; the default kernels keep 4 partial sums."""
    from aucopt._kernels import _stats, spam
    from aucopt._kernels._variants import fastmath_variant

    twin = fastmath_variant(spam.spam_epoch)
    if not hasattr(twin, "py_func"):
        pytest.skip("NUMBA_DISABLE_JIT=1: no twins")
    names = twin.py_func.__globals__
    assert names["row_dot3_unrolled"] is _stats.row_dot3
    assert names["dot_unrolled"] is _stats.dot_plain
    assert spam.spam_epoch.py_func.__globals__["dot_unrolled"] is _stats.dot_unrolled
