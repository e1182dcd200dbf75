"""aucopt.distributed against clusters started as a user starts them: an external ``dask
scheduler`` + ``dask worker`` (subprocesses on 127.0.0.1), and the guide's script (a
``LocalCluster`` under ``if __name__ == "__main__":`` with ``import aucopt`` at the top);
workers killed by PID mid-fit."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

pytest.importorskip("distributed")
import cloudpickle  # noqa: E402
from distributed import Client  # noqa: E402
from sklearn.datasets import dump_svmlight_file  # noqa: E402

import aucopt  # noqa: E402
from aucopt import distributed as ad  # noqa: E402
from aucopt.datasets import load  # noqa: E402

from ._child_env import child_env  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])

# the graphs of the fault test hold this module's helpers: importable on the cluster too
ENV = child_env(PYTHONWARNINGS="ignore")


class External:
    """A scheduler and ``n_workers`` worker processes (each under its own nanny), started
    with the ``dask`` command in sessions of their own, so that they can be killed."""

    def __init__(self, folder, n_workers=2):
        self.folder, self.workers = folder, []
        file = folder / "scheduler.json"
        self.log = open(folder / "cluster.log", "w")  # noqa: SIM115
        self.scheduler = self._spawn(["scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", str(file)])
        deadline = time.monotonic() + 120
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.address = json.loads(file.read_text())["address"]
        for _ in range(n_workers):
            self.workers.append(self._spawn(
                ["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
                 "--memory-limit", "1GB", "--no-dashboard"]))
        with Client(self.address, set_as_default=False) as client:
            client.wait_for_workers(n_workers, timeout=120)

    def _spawn(self, args):
        return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=self.log,
                                stderr=subprocess.STDOUT, start_new_session=True, env=ENV,
                                cwd=self.folder)

    def kill_workers(self):
        """Kill every ``dask worker`` command with its nanny and worker process (SIGKILL)."""
        for proc in self.workers:
            os.killpg(proc.pid, signal.SIGKILL)
        for proc in self.workers:
            proc.wait(30)

    def close(self):
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
        self.log.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    external = External(tmp_path_factory.mktemp("external"))
    yield external
    external.close()


def _parts(folder, n_parts=4):
    """german.numer (bundled, 1,000 x 24) in ``n_parts`` LIBSVM files under folder/parts."""
    X, y = load("german.numer")
    (folder / "parts").mkdir()
    for k, rows in enumerate(np.array_split(np.arange(X.shape[0]), n_parts)):
        dump_svmlight_file(X[rows], y[rows], str(folder / "parts" / f"{k}.svm"),
                           zero_based=False)
    return X, y


def test_cli_fit_and_evaluate_with_a_scheduler_address_and_relative_glob(cluster, tmp_path):
    """The workers run in another directory: the relative glob reaches them as absolute
    paths. Quiet by default: no Dask log lines or warnings on success."""
    X, y = _parts(tmp_path)
    cli = [sys.executable, "-m", "aucopt"]
    fit = subprocess.run([*cli, "fit", "spam-l2", "parts/*.svm", "--distributed",
                          "--scheduler", cluster.address, "--n-features", "24",
                          "--strategy", "average", "--rounds", "2", "--out", "model"],
                         cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=600)
    assert fit.returncode == 0, fit.stderr
    assert "strategy 'average' on 4 parts" in fit.stdout
    assert fit.stderr == "", fit.stderr  # no nanny, run_spec or INFO lines
    model = aucopt.io.load(tmp_path / "model")
    evaluate = subprocess.run([*cli, "evaluate", "model", "parts/*.svm"], cwd=tmp_path,
                              capture_output=True, text=True, env=ENV, timeout=600)
    assert evaluate.returncode == 0, evaluate.stderr
    assert f"AUC on parts/*.svm (4 parts): {model.score(X, y):.4f}" in evaluate.stdout


@pytest.mark.parametrize("progress", [False, True])
def test_fit_scores_and_auc_with_an_address(cluster, tmp_path, progress):
    X, y = _parts(tmp_path)
    Xd, yd = ad.read_svmlight(str(tmp_path / "parts" / "*.svm"), n_features=24)
    est = ad.fit(aucopt.make("spam-l2", random_state=0), Xd, yd, strategy="sequential",
                 client=cluster.address, progress=progress)
    ref = aucopt.make("spam-l2", random_state=0)
    for k in range(4):
        ref.partial_fit(*_read(tmp_path / "parts" / f"{k}.svm"), classes=[-1, 1])
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    scores = ad.decision_function(est, Xd)
    auc = ad.roc_auc_score(yd, scores, client=cluster.address)
    assert auc == pytest.approx(est.score(X, y), abs=1e-12)


def _read(path):
    from sklearn.datasets import load_svmlight_file

    return load_svmlight_file(str(path), n_features=24)


def _slow(block):
    time.sleep(0.5)
    return block


def _kill_when_busy(client, pids, killed, kill):
    """Wait until a worker runs a task, then call ``kill`` with the busy workers."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = [w for w, tasks in client.processing().items() if tasks and w in pids]
        if busy:
            time.sleep(0.3)
            kill(busy)
            killed.append(time.monotonic())
            return
        time.sleep(0.05)


def test_workers_killed_by_pid_mid_fit(tmp_path):
    """One worker process killed: its nanny starts a new one and the fit ends with the same
    model. Every worker killed with its nanny: a clear error within 60 s, no hang."""
    import dask.array as da
    import dask.config

    external = External(tmp_path)
    try:
        X, y = load("german.numer")
        Xd = da.from_array(X, chunks=(125, -1)).map_blocks(_slow, dtype=float)
        yd = da.from_array(y, chunks=125)
        ref = aucopt.make("spam-l2", random_state=0)
        for k in range(0, 1000, 125):
            ref.partial_fit(X[k:k + 125], y[k:k + 125], classes=[-1, 1])
        with Client(external.address, set_as_default=False) as client:
            pids = client.run(os.getpid)
            killed, result = [], {}

            def one(busy):
                os.kill(pids[busy[0]], signal.SIGKILL)

            thread = threading.Thread(target=_kill_when_busy, args=(client, pids, killed, one))
            thread.start()
            est = ad.fit(aucopt.make("spam-l2", random_state=0), Xd, yd,
                         strategy="sequential", client=client)
            thread.join()
            assert killed
            np.testing.assert_array_equal(est.coef_, ref.coef_)

            def run():
                try:
                    ad.fit(aucopt.make("spam-l2", random_state=0), Xd, yd,
                           strategy="sequential", client=client)
                    result["outcome"] = "finished"
                except ad.NoWorkersError as exc:
                    result["outcome"], result["error"] = "error", str(exc)
                result["at"] = time.monotonic()

            killed.clear()
            pids = client.run(os.getpid)
            worker = threading.Thread(target=run)
            # a shorter wait than the default 30 s keeps the suite short; the thread sees it
            with dask.config.set({ad.NO_WORKER_TIMEOUT_KEY: 10}):
                worker.start()
                _kill_when_busy(client, pids, killed, lambda _: external.kill_workers())
                worker.join(120)
        assert not worker.is_alive(), "fit still running 120 s after every worker was killed"
        assert result["outcome"] == "error" and "no Dask worker" in result["error"]
        assert "for 10 s" in result["error"], result["error"]
        assert result["at"] - killed[0] < 60
    finally:
        external.close()
