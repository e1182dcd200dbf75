"""Sphinx extension: one page per registry id, generated from the registry at build time.

Each page (``docs/algorithms/generated/<id>.rst``) is built from
:func:`aucopt.algorithm_info` (paper, family, cost, memory, grids, defaults) and from the
estimator's numpydoc docstring (objective and update, parameters, notes, references), so
the pages cannot drift from the code. The list page includes ``generated/table.inc``.
"""

from __future__ import annotations

import re
from pathlib import Path

from numpydoc.docscrape import ClassDoc

import aucopt

OUT = Path(__file__).resolve().parents[1] / "algorithms" / "generated"

# docstring citations like "[1]_" point at the class page's references; drop them here
_CITE = re.compile(r"\s*\[\d+\]_")
_ABBREVIATIONS = (" i.e.", " e.g.", " et al.", " cf.", " vs.", "(i.e.", "(e.g.", "(cf.")


def _text(lines) -> str:
    return _CITE.sub("", "\n".join(lines)).strip()


def _plain(text: str) -> str:
    """Escape the reStructuredText markup characters of a plain-text registry note."""
    return re.sub(r"([\\*|`_])", r"\\\1", text)


def _heading(title: str, char: str) -> list[str]:
    return [title, char * len(title), ""]


def _cell(value) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return "``" + text.replace("`", "'") + "``"


def _grid(values) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values) if values \
        else ""


def _first_sentence(desc: list[str]) -> str:
    """The text up to the first full stop that ends a sentence (not an abbreviation's)."""
    text = " ".join(line.strip() for line in desc).strip()
    for stop in re.finditer(r"\.(\s|$)", text):
        head = text[:stop.start() + 1]
        if not head.endswith(_ABBREVIATIONS):
            return _CITE.sub("", head)
    return _CITE.sub("", text)


def _param_table(info: dict) -> list[str]:
    described = {p["name"]: [p["doc"]] for p in info["params"]}  # the declarations
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 15 15 25 20 40", "",
             "   * - parameter", "     - default", "     - paper grid", "     - quick grid",
             "     - meaning"]
    for name, default in info["defaults"].items():
        lines += [f"   * - ``{name}``", f"     - {_cell(default)}",
                  f"     - {_grid(info['grid'].get(name))}",
                  f"     - {_grid(info['quick_grid'].get(name))}",
                  f"     - {_first_sentence(described.get(name, []))}"]
    return lines + [""]


def algorithm_page(algorithm: str) -> str:
    """Return the reStructuredText page of ``algorithm``."""
    info = aucopt.algorithm_info(algorithm)
    cls = info["class"]
    doc = ClassDoc(cls, config={"show_class_members": False})
    module = cls.__module__.rsplit("._", 1)[0]
    lines = [f".. _algorithm-{algorithm}:", "", *_heading(f"{info['name']} (``{algorithm}``)",
                                                            "=")]
    lines += [_text(doc["Summary"]), ""]
    lines += [".. list-table::", "   :widths: 25 75", "",
              "   * - estimator", f"     - :class:`{module}.{cls.__name__}`",
              "   * - make it", f"     - ``aucopt.make({algorithm!r})``",
              "   * - family", f"     - {info['family']}",
              "   * - model", f"     - {'linear scorer' if info['linear'] else 'kernel scorer'}",
              "   * - streaming (``partial_fit``)",
              f"     - {'yes' if info['streaming'] else 'no'}",
              "   * - sparse (CSR) input", f"     - {'yes' if info['sparse'] else 'no'}",
              "   * - cost per step", f"     - {info['cost']}",
              "   * - memory", f"     - {info['memory']}",
              "   * - step parameter", f"     - ``{info['step_param']}``" if info["step_param"]
              else "     - (none)", ""]
    lines += [*_heading("Objective and update", "-"), _text(doc["Extended Summary"]), ""]
    lines += [*_heading("Hyperparameters", "-"),
              "Defaults of the estimator; *paper grid* is the grid of the paper's experiments "
              "(``aucopt.algorithm_info(id)['grid']``), *quick grid* the at most 9 combinations "
              "``aucopt demo`` and ``aucopt compare`` tune by default.", "",
              *_param_table(info)]
    notes = _text(doc["Notes"])
    if notes or info["notes"]:
        lines += [*_heading("Notes", "-"), notes, "", _plain(info["notes"] or ""), ""]
    lines += [*_heading("Paper", "-"), info["paper"], ""]
    for entry in re.split(r"^\.\. \[\d+\]", _text(doc["References"]), flags=re.M):
        if entry.strip():
            lines += ["- " + " ".join(entry.split()), ""]
    return "\n".join(lines) + "\n"


def table() -> str:
    """Return the rst table of every algorithm, linking to its page."""
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 18 10 10 32 30", "",
             "   * - id", "     - streaming", "     - model", "     - memory", "     - source"]
    for algorithm in aucopt.list_algorithms():
        info = aucopt.algorithm_info(algorithm)
        lines += [f"   * - :ref:`{algorithm} <algorithm-{algorithm}>`",
                  f"     - {'yes' if info['streaming'] else 'no'}",
                  f"     - {'linear' if info['linear'] else 'kernel'}",
                  f"     - {info['memory']}", f"     - {info['source']}"]
    return "\n".join(lines) + "\n"


def write_pages(out: Path = OUT) -> list[str]:
    """Write every page (only when its text changed) and return the ids."""
    out.mkdir(parents=True, exist_ok=True)
    ids = aucopt.list_algorithms()
    pages = {f"{a}.rst": algorithm_page(a) for a in ids}
    pages["table.inc"] = table()
    for name, text in pages.items():
        path = out / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    for stale in {p.name for p in out.iterdir()} - set(pages):
        (out / stale).unlink()
    return ids


def _builder_inited(app) -> None:
    write_pages()


def setup(app):
    app.connect("builder-inited", _builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
