"""``aucopt algorithms`` from its stamped cache: the same tables as the registry's, read
without importing the algorithms, rebuilt when a source changes or the file is bad."""

import json
import os
import subprocess
import sys

from typer.testing import CliRunner

from aucopt.cli import app
from aucopt.cli._tables import (
    KEEP,
    algorithms_markdown,
    algorithms_text,
    build_tables,
    cached_tables,
    source_stamp,
)

from ._child_env import child_env

HEAVY = ("sklearn", "scipy", "numba")
RUN_COMMAND = (
    "import json, sys\n"
    "from aucopt.cli import app\n"
    "try:\n"
    "    app(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    assert not exc.code, exc.code\n"
    "print(json.dumps([m for m in {heavy!r} if m in sys.modules]))\n"
)


def _command(tmp_path, *args):
    """Run ``aucopt args`` in a new process; return its output and the heavy modules it
    imported (its own cache home in ``tmp_path``)."""
    out = subprocess.run([sys.executable, "-c", RUN_COMMAND.format(heavy=HEAVY), *args],
                         capture_output=True, text=True, check=True,
                         env=child_env(AUCOPT_DATA=str(tmp_path)))
    text, _, heavy = out.stdout.rstrip("\n").rpartition("\n")
    return text, json.loads(heavy)


def test_the_second_command_reads_the_tables_without_importing_the_algorithms(tmp_path):
    _command(tmp_path, "algorithms")  # builds the cache if this checkout's is missing
    text, heavy = _command(tmp_path, "algorithms")
    assert heavy == [] and text == algorithms_text()
    text, heavy = _command(tmp_path, "algorithms", "--markdown")
    assert heavy == [] and text == algorithms_markdown()
    text, heavy = _command(tmp_path, "algorithms", "spam-net")
    assert heavy == [] and text == build_tables()["params"]["spam-net"]


def test_an_unknown_id_gets_the_registrys_message():
    result = CliRunner().invoke(app, ["algorithms", "spam-l3"])
    assert result.exit_code != 0
    assert "Unknown algorithm id 'spam-l3'" in result.output and "spam-l2" in result.output


def test_the_cache_is_built_stored_and_read_back(tmp_path):
    built = cached_tables(folders=[tmp_path], stamp="s1")
    assert built == {**build_tables(), "stamp": "s1"}
    stored = tmp_path / "algorithms-s1.json"
    assert json.loads(stored.read_text()) == built
    stored.write_text(json.dumps({**built, "text": "from the file"}))
    assert cached_tables(folders=[tmp_path], stamp="s1")["text"] == "from the file"
    assert cached_tables(folders=[tmp_path], stamp="s2")["text"] == algorithms_text()


def test_a_bad_or_foreign_file_is_rebuilt(tmp_path):
    stored = tmp_path / "algorithms-s1.json"
    for bad in ("{not json", json.dumps(["a list"]), json.dumps({"stamp": "s0", "text": "x"}),
                json.dumps({"stamp": "s1", "text": "x"}),
                json.dumps({"stamp": "s1", "text": "x", "markdown": "y", "params": []})):
        stored.write_text(bad)
        assert cached_tables(folders=[tmp_path], stamp="s1")["text"] == algorithms_text()
        assert json.loads(stored.read_text())["stamp"] == "s1"


def test_a_folder_that_cannot_be_written_is_skipped(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    second = tmp_path / "second"
    tables = cached_tables(folders=[blocker / "tables", second], stamp="s1")
    assert tables["text"] == algorithms_text()
    assert (second / "algorithms-s1.json").is_file()
    # nowhere to write: the tables all the same, and no temporary file left
    assert cached_tables(folders=[blocker / "tables"], stamp="s2")["stamp"] == "s2"
    assert sorted(p.name for p in second.iterdir()) == ["algorithms-s1.json"]


def test_only_the_newest_tables_are_kept(tmp_path):
    for k in range(KEEP + 3):
        old = tmp_path / f"algorithms-old{k}.json"
        old.write_text("{}")
        os.utime(old, (1000 + k, 1000 + k))
    cached_tables(folders=[tmp_path], stamp="new")
    kept = sorted(p.name for p in tmp_path.glob("algorithms-*.json"))
    newest = [f"algorithms-old{k}.json" for k in range(KEEP + 3)][-(KEEP - 1):]
    assert kept == sorted(["algorithms-new.json", *newest])


def test_the_stamp_follows_every_source_file_and_nothing_else(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "__pycache__").mkdir()
    source = tmp_path / "sub" / "b.py"
    source.write_text("x = 1\n")
    (tmp_path / "a.py").write_text("y = 2\n")
    first = source_stamp(tmp_path)
    (tmp_path / "__pycache__" / "c.py").write_text("ignored\n")
    (tmp_path / "notes.txt").write_text("not a source\n")
    assert source_stamp(tmp_path) == first
    source.write_text("x = 10\n")  # the size
    second = source_stamp(tmp_path)
    assert second != first
    os.utime(source, ns=(1, 1))  # the modification time alone
    assert source_stamp(tmp_path) not in (first, second)
    (tmp_path / "sub" / "new.py").write_text("")
    assert source_stamp(tmp_path) not in (first, second)
