"""The benchmark runner (``make bench``) on a tiny scale: it runs and writes a complete report.

Timing values are not checked (no timing asserts in unit tests); this guards the runner
and the report against rot.
"""

import json
import subprocess
import sys
from pathlib import Path

from ._child_env import child_env

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_runner_writes_the_report(tmp_path):
    out = tmp_path / "performance.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--algorithms", "spam-l2,opauc",
         "--fastmath", "spam-l2", "--scale", "0.02", "--repeats", "1", "--budget", "0.05",
         "--no-memory-test", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, env=child_env(),
        timeout=3600,  # hangs only: a loaded laptop is slow
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = out.read_text()
    for section in ("## Targets", "## Machine", "## Definitions",
                    "## fit overhead on dense d=100",
                    "## Sparse: time per row at d=10^6 over d=10^4 (same nnz)"):
        assert section in text
    targets = [line for line in text.splitlines() if line.startswith("| SPAM-L2 dense d=100")]
    assert len(targets) == 8  # 4 targets x (default, fastmath)
    assert all(line.rstrip(" |").endswith(("met", "NOT MET")) for line in targets), targets
    # the overhead split (kernel, stats pass, rest) is filled for the dense d=100 cells
    overhead = [line for line in text.splitlines() if line.startswith("| spam-l2 | default |")]
    assert overhead and "|  |" not in overhead[0]
    # the sparse target is judged on both d=10^6 workloads, with the per-row split filled
    sparse = [line for line in text.splitlines()
              if line.startswith("| spam-l2: time per row at CSR d=10^6")]
    assert len(sparse) == 2 and all("per row" in line and "; per row x" not in line
                                    for line in sparse), sparse
    # the step calibration's share of a default fit, on the dense and the CSR d=10^6 workload
    shares = [line for line in text.splitlines() if line.startswith("| step calibration, ")]
    assert len(shares) == 2 and all(line.rstrip(" |").endswith(("met", "NOT MET"))
                                    and " of " in line for line in shares), shares
    # the preconditioner's cost: whole fits, and the default fit's passes apart, per workload
    lines = [line for line in text.splitlines() if line.startswith("| preconditioner, ")]
    assert len(lines) == 6 and sum("per row of its passes" in line for line in lines) == 2
    section = text.split("## The preconditioner's cost")[1].split("\n## ")[0].splitlines()
    cells = [line for line in section if line.startswith("| dense n=200k d=100 | ")]
    assert len(cells) == 6 and all(line.count("|") == 13 and "nan" not in line
                                   for line in cells), cells


def test_streaming_chunks_writes_the_report(tmp_path):
    out = tmp_path / "streaming.md"
    # the sections other commands measure stay (a rerun deleted them)
    owned = "## River: a new feature name in every row\n\nmeasured by another command\n"
    out.write_text(f"# an older report\n\n## Machine\n\n- old\n\n{owned}")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "streaming_chunks.py"), "--algorithms",
         "uni-squ,spam-l2", "--rows", "600", "--chunks", "200,300", "--repeats", "1",
         "--calls", "20", "--warm", "100", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, env=child_env(),
        timeout=3600,  # hangs only: a loaded laptop is slow
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = out.read_text().splitlines()
    rows = [line for line in lines if line.startswith("| CSR d=")]
    assert len(rows) == 4 and all(line.count("|") == 8 for line in rows), rows
    per_call = [line for line in lines if line.startswith(("| uni-squ | d=", "| spam-l2 | d="))]
    assert len(per_call) == 4 and all(line.count("|") == 9 for line in per_call), per_call
    ratios = [line for line in lines if line.startswith(("| uni-squ | ", "| spam-l2 | "))
              and line.count("|") == 4]
    assert len(ratios) == 2, ratios
    text = out.read_text()
    assert text.endswith(owned) and text.count("## Machine") == 1 and "- old" not in text


def test_peers_benchmark_quick_run_writes_the_report(tmp_path):
    """``benchmarks/peers.py --quick`` without the dataset mirror and the optional peers."""
    out = tmp_path / "peers.md"
    env = {k: v for k, v in child_env().items() if k != "AUCOPT_DATA_MIRROR"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peers.py"), "--quick", "--no-peers",
         "--out", str(out)], capture_output=True, text=True, timeout=900, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = out.read_text()
    assert "no dataset mirror" in text and "## Results" in text
    assert "Peers run: scikit-learn. Not installed here (skipped): " in text  # --no-peers
    summary = [line for line in text.splitlines() if line.startswith("| synthetic")
               or line.startswith("| hashed")]
    assert len(summary) == 3 and all(line.count("|") == 10 for line in summary), summary
    assert all(line.rstrip(" |").endswith(("yes", "NO")) for line in summary)
    for figure in ("peers_auc_time.png", "peers_memory.png", "peers_prequential.png"):
        assert (tmp_path / figure).stat().st_size > 1000
    # a merged report names the commit each of its runs started from
    run = json.loads(out.with_suffix(".json").read_text())
    assert run["stamp"].startswith("aucopt ")
    merged = tmp_path / "merged" / "peers.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peers.py"), "--merge",
         str(out.with_suffix(".json")), "--out", str(merged)], capture_output=True, text=True,
        timeout=900, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"--quick [{run['stamp']}]" in merged.read_text()
    # merged with a run that had Vowpal Wabbit installed, and rows of LibAUC (a part whose
    # flags say otherwise, as a run without torch merged with one that had it): both are
    # named as run, River (in no run) as not installed, torch not at all (LibAUC ran on it);
    # a merged part keeps the stamps its command names
    other = {**run, "peers": {**run["peers"], "Vowpal Wabbit": True}}
    other["cases"] = [{**case, "rows": [{**row, "tool": "LibAUC"} for row in case["rows"][:1]]}
                      for case in run["cases"][:1]]
    both = tmp_path / "both.json"
    both.write_text(json.dumps(other))
    again = tmp_path / "again" / "peers.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peers.py"), "--merge",
         f"{out.with_suffix('.json')},{both},{merged.with_suffix('.json')}", "--out", str(again)],
        capture_output=True, text=True, timeout=900, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    header = next(line for line in again.read_text().splitlines() if line.startswith("Peers run"))
    assert header == ("Peers run: scikit-learn, Vowpal Wabbit, LibAUC. "
                      "Not installed here (skipped): River."), header
    assert again.read_text().count(f"[{run['stamp']}]") == 3  # not twice for the merged part
    assert "no dataset mirror" in again.read_text()  # no part ran a real dataset
    # merged with a part that ran a real dataset: the other part's note of a missing mirror
    # (its cases needed none) does not reach the report
    real = {**run, "cases": [{**run["cases"][0], "name": "diabetes"}], "messages": []}
    both.write_text(json.dumps(real))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peers.py"), "--merge",
         f"{out.with_suffix('.json')},{both}", "--out", str(again)],
        capture_output=True, text=True, timeout=900, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "no dataset mirror" not in again.read_text()
