"""The numbers the README quotes agree with the reports it links.

* the performance lines are generated from docs/performance.md (``benchmarks/_readme.py``)
  and must be exactly what the committed report gives;
* every other decimal number in a bullet that links a report must be a number of that report
  (to the README's precision): a report regenerated with other results makes this fail until
  the README says the same.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import _readme  # noqa: E402


def _readme_text() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_performance_lines_are_generated_from_the_report():
    report = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    expected = "\n".join(_readme.performance_lines(report))
    assert _readme.readme_block(_readme_text()) == expected, (
        "README's performance lines are stale: run `python benchmarks/_readme.py`")
    assert "4.38–4.52x" in expected and "1.06–1.10x" in expected  # the committed report


def _bullets():
    section = _readme_text().split("## Measured, not asserted", 1)[1].split("\n## ", 1)[0]
    for bullet in re.split(r"\n- ", section):
        link = re.match(r"\[[^\]]+\]\((docs/[^)]+\.md)\)", bullet)
        if link and not link.group(1).endswith("README.md"):
            yield Path(link.group(1)), bullet.split(_readme.START)[0]


def test_every_decimal_the_readme_quotes_is_in_the_linked_report():
    checked = 0
    for path, bullet in _bullets():
        report = (ROOT / path).read_text(encoding="utf-8")
        numbers = [float(x) for x in re.findall(r"\d+\.\d+", report)]
        for quoted in re.findall(r"(?<![\w^=.])(\d+\.\d+)(?![\w.])", bullet):
            digits = len(quoted.split(".")[1])
            assert quoted in report or any(round(n, digits) == float(quoted) for n in numbers), (
                f"README quotes {quoted} for {path}, which the report does not contain")
            checked += 1
    assert checked >= 8



_ISSUE = re.compile(r"\bissues? #?\d+|(?<![\w(&/`\[])#\d+(?:/#\d+)*\b")


def test_user_docs_and_report_generators_name_no_internal_issue():
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"),
             *(ROOT / "benchmarks").glob("*.py")]
    found = []
    for page in pages:
        relative = page.relative_to(ROOT).as_posix()
        if any(part in relative for part in ("_build", "auto_examples", "/generated/")):
            continue
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if page.suffix == ".py" and '"' not in line:
                continue  # code comments: not written into a report
            found += [f"{relative}:{number}: {m.group(0)}" for m in _ISSUE.finditer(line)]
    assert not found, found
