"""The input fuzz (benchmarks/fuzz_inputs.py) at its small size: damaged CSR structures,
set_params sequences, extreme hyperparameters, weights and data, each case in a
subprocess worker with a time limit. No crash, hang, silent wrong result or exception
outside the documented kinds (ValueError, OSError)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_small_input_fuzz_finds_nothing():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fuzz_inputs.py"),
                           "--size", "small", "--json"], capture_output=True, text=True,
                          timeout=1800, cwd=ROOT)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["cases"] >= 20
    bad = {k: summary[k] for k in ("crashes", "hangs", "silent wrong results",
                                   "undocumented exceptions")}
    assert not any(bad.values()), (bad, summary["failures"])
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_damage_that_leaves_a_valid_matrix_is_not_counted_as_accepted():
    """``indptr[2]`` set to 8 between 5 and 10 gives other rows of a valid matrix, which
    every estimator must take: the fuzz counted it as an invalid structure accepted."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from _fuzz_inputs_worker import _damaged, run_csr, still_valid
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    case = {"kind": "csr", "algorithm": "uni-squ", "damage": "indptr", "position": 2,
            "value": 8, "call": "decision_function", "seed": 2, "id": 241}
    good, damaged = _damaged(case)
    assert not (good.indptr == damaged.indptr).all() and still_valid(damaged)
    assert run_csr(case) is None
    case.update(damage="short_data")  # fewer values than indices: invalid, and refused
    assert not still_valid(_damaged(case)[1])
