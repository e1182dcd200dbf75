"""The parts of a fuzz suite's report in docs/fuzz.md: its counts table and its section.

Each suite (``fuzz_io.py``, ``fuzz_inputs.py``) owns one section of the page, between its
own begin / end markers, and rewrites only that section.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BAD", "new_row", "table", "headline", "write_section"]

BAD = ["crashes", "hangs", "silent wrong", "other exceptions"]  # every count should be 0


def new_row(columns: list[str], **counts) -> dict:
    """Return a row of ``columns`` counts, 0 where ``counts`` has none."""
    return {c: counts.get(c, 0) for c in columns}


def table(rows: dict, columns: list[str]) -> str:
    """Return the markdown table of ``rows`` (attack class -> counts) with an **all** row."""
    lines = ["| attack class | " + " | ".join(columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    total = new_row(columns)
    for name, row in rows.items():
        lines.append(f"| {name} | " + " | ".join(str(row[c]) for c in columns) + " |")
        for c in columns:
            total[c] += row[c]
    lines.append("| **all** | " + " | ".join(f"**{total[c]}**" for c in columns) + " |")
    return "\n".join(lines)


def headline(rows: dict) -> str:
    """Return the bold count of bad outcomes over all the cases of ``rows``."""
    bad = sum(row[c] for row in rows.values() for c in BAD)
    return (f"**{bad} bad outcomes** (crashes, hangs, silent wrong results, exceptions "
            f"outside the documented kinds) over {sum(r['cases'] for r in rows.values())} "
            "cases.")


def write_section(path: Path, text: str, section: tuple[str, str]) -> None:
    """Replace the ``section`` (begin, end markers) of the page ``path`` by ``text`` in
    place, or append it; the rest of the page is kept."""
    old = path.read_text() if path.exists() else "# Fuzzing\n"
    block = f"{section[0]}\n{text}\n{section[1]}"
    if section[0] in old:
        head, rest = old.split(section[0], 1)
        path.write_text(head + block + rest.split(section[1], 1)[1])
    else:
        path.write_text(old.rstrip("\n") + f"\n\n{block}\n")
