"""Faults during ``aucopt.distributed.fit`` on the guide's script: a ``LocalCluster`` of 2
workers under ``if __name__ == "__main__":`` with ``import aucopt`` at the top, a9a-like
LIBSVM parts read lazily with ``read_svmlight``. Workers killed by PID mid-fit (one, then
all), and every worker paused at its memory limit (real memory held in the worker
processes), which resumes or ends in ``NoWorkersError``.

The script runs once for the module in a subprocess, under a 10-minute guard: a fit that
waits for ever fails its test instead of hanging the suite. Each scenario appends its outcome
to a JSON-lines file, so that a hang in one leaves the others' results readable.
"""

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("distributed")

from ._child_env import child_env  # noqa: E402

#: The script's wait for a worker (Dask's configuration ``aucopt.no-worker-timeout``): shorter
#: than the default 30 s to keep the suite short, longer than the 5 s the resumed scenario
#: stays paused.
WAIT = 15
ENV = child_env(PYTHONWARNINGS="ignore", DASK_AUCOPT__NO_WORKER_TIMEOUT=str(WAIT))
#: Seconds after the last kill (or after every worker paused) by which the fit must have
#: ended: the library waits ``WAIT`` seconds with no worker able to run a task.
BOUND = 120

SCRIPT = '''
import json
import os
import signal
import sys
import threading
import time

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import aucopt
from aucopt import distributed as ad


def write_parts(n_parts=8, rows=3000, width=123):
    """a9a-like parts: 123 binary features, about 14 set per row, 24% positives."""
    rng = np.random.default_rng(0)
    w = rng.normal(size=width)
    os.makedirs("parts", exist_ok=True)
    for part in range(n_parts):
        X = sp.random(rows, width, density=14 / width, format="csr", random_state=part,
                      data_rvs=np.ones)
        score = X @ w + rng.normal(size=rows)
        y = np.where(score > np.quantile(score, 0.76), 1, -1)
        dump_svmlight_file(X, y, f"parts/{part}.svm", zero_based=False)


def record(name, **result):
    with open("results.jsonl", "a") as out:
        out.write(json.dumps({"scenario": name, **result}) + "\\n")


def statuses(client):
    return [w["status"] for w in client.scheduler_info()["workers"].values()]


def kill_mid_fit(client, pids, how_many, killed):
    """Once the fit runs tasks, SIGKILL ``how_many`` worker processes (busy ones first)."""
    while not any(client.processing().values()):
        time.sleep(0.02)
    time.sleep(0.2)
    busy = client.processing()
    for address in sorted(pids, key=lambda a: not busy.get(a))[:how_many]:
        os.kill(pids[address], signal.SIGKILL)
    killed.append(time.monotonic())


def hold_memory(dask_worker=None):
    """Raise this worker's process memory to 87.5% of its limit (Dask pauses at 80%)."""
    import psutil

    limit = dask_worker.memory_manager.memory_limit
    extra = int(0.875 * limit) - psutil.Process().memory_info().rss
    dask_worker.aucopt_ballast = np.ones(max(extra, 0) // 8)


def free_memory(dask_worker=None):
    dask_worker.aucopt_ballast = None


def pause_all(client):
    client.run(aucopt.warmup, ["spam-l2"])  # no compiling on top of the held memory
    client.run(hold_memory)
    deadline = time.monotonic() + 120
    while set(statuses(client)) != {"paused"} and time.monotonic() < deadline:
        time.sleep(0.1)
    return time.monotonic()


def outcome(model, reference):
    return "same" if np.array_equal(model.coef_, reference.coef_) else "differs"


if __name__ == "__main__":
    write_parts()
    with ad.local_cluster(n_workers=2, memory_limit="1GB") as client:
        X, y = ad.read_svmlight("parts/*.svm", n_features=123)

        def fit():
            return ad.fit(aucopt.make("spam-l2", random_state=0), X, y, strategy="average",
                          n_rounds=8)

        reference = fit()
        paused_at = pause_all(client)
        result = {}
        thread = threading.Thread(target=lambda: result.update(model=fit()), daemon=True)
        thread.start()
        time.sleep(5)
        still_running = thread.is_alive()
        client.run(free_memory)
        thread.join(300)
        record("paused, then resumed", paused=time.monotonic() - paused_at,
               waited=still_running,
               outcome=outcome(result["model"], reference) if "model" in result else None)
        deadline = time.monotonic() + 120
        while set(statuses(client)) != {"running"} and time.monotonic() < deadline:
            time.sleep(0.1)

        paused_at = pause_all(client)
        all_paused = set(statuses(client)) == {"paused"}
        try:
            result = outcome(fit(), reference)
        except ad.NoWorkersError as exc:
            result = "error: " + str(exc)
        record("paused", outcome=result, all_paused=all_paused,
               after=time.monotonic() - paused_at)
        client.run(free_memory)

        for name, how_many in (("one killed", 1), ("all killed", 2)):
            killed = []
            pids = client.run(os.getpid)
            thread = threading.Thread(target=kill_mid_fit,
                                      args=(client, pids, how_many, killed), daemon=True)
            thread.start()
            try:
                result = outcome(fit(), reference)
            except ad.NoWorkersError as exc:
                result = "error: " + str(exc)
            ended = time.monotonic()
            thread.join()
            try:  # the nannies start new workers
                client.wait_for_workers(2, timeout=120)
            except TimeoutError:
                pass
            record(name, outcome=result, workers=len(pids),
                   killed=min(how_many, len(pids)) if killed else 0,
                   after=ended - killed[-1] if killed else None,
                   back=statuses(client).count("running"))
'''


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory):
    """Run the script once; return its scenarios by name (a hang shows as missing ones)."""
    folder = tmp_path_factory.mktemp("faults")
    (folder / "guide.py").write_text(textwrap.dedent(SCRIPT))
    with open(folder / "stderr.log", "w") as log:
        try:
            run = subprocess.run([sys.executable, "guide.py"], cwd=folder, stdout=log,
                                 stderr=subprocess.STDOUT, env=ENV, timeout=600)
            failure = None if run.returncode == 0 else "the script failed"
        except subprocess.TimeoutExpired:
            failure = "the script was still running after 600 s"
    if failure:  # Dask's errors, and the end of the log
        text = (folder / "stderr.log").read_text()
        failure += ":\n" + "\n".join([line for line in text.splitlines()
                                       if " - ERROR - " in line][:20] + [text[-3000:]])
    lines = (folder / "results.jsonl").read_text().splitlines() \
        if (folder / "results.jsonl").exists() else []
    found = {line["scenario"]: line for line in map(json.loads, lines)}
    return found, failure


def _scenario(scenarios, name):
    found, failure = scenarios
    assert name in found, f"scenario {name!r} did not end: {failure}"
    return found[name]


def test_one_worker_killed_by_pid_mid_fit_gives_the_same_model(scenarios):
    """Its nanny starts a new worker and Dask reruns the lost tasks."""
    result = _scenario(scenarios, "one killed")
    assert result["killed"] == 1 and result["workers"] == 2, result
    assert result["outcome"] == "same", result
    assert result["back"] == 2, result


def test_all_workers_killed_by_pid_mid_fit_finish_or_fail_within_the_bound(scenarios):
    """The nannies restart both: the fit ends with the same model, or raises
    ``NoWorkersError`` if the workers did not come back; never a hang."""
    result = _scenario(scenarios, "all killed")
    assert result["killed"] == result["workers"] == 2, result
    assert result["outcome"] == "same" or result["outcome"].startswith(
        "error: no Dask worker"), result
    assert result["after"] < BOUND, result


def test_every_killed_worker_is_replaced(scenarios):
    """Both nannies bring a new worker back after the second kill, a few seconds after the
    first one: with Dask's default of 15 s for a replacement to start, counted from the
    first death, the cluster can close a nanny before its new worker registers."""
    assert _scenario(scenarios, "all killed")["back"] == 2


def test_paused_workers_that_resume_finish_the_fit_with_the_same_model(scenarios):
    """The fit waits while every worker is paused (memory above 80% of memory_limit) and
    goes on, unchanged, when the memory falls again."""
    result = _scenario(scenarios, "paused, then resumed")
    assert result["waited"], result
    assert result["outcome"] == "same", result


def test_workers_paused_at_their_memory_limit_raise_a_clear_error(scenarios):
    """Every worker paused for good: ``NoWorkersError`` within the bound, saying that the
    workers are paused at their memory limit and to give them more memory."""
    result = _scenario(scenarios, "paused")
    assert result["all_paused"], result
    assert result["outcome"].startswith("error: no Dask worker could run"), result
    assert "paused at their memory limit" in result["outcome"], result
    assert "memory_limit=" in result["outcome"], result
    assert f"for {WAIT} s" in result["outcome"], result  # the configured wait
    assert result["after"] < BOUND, result
