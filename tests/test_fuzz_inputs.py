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
