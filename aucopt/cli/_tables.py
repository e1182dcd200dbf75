"""Algorithm tables generated from the registry (CLI and README)."""

from __future__ import annotations


def _rows():
    from .._api import algorithm_info, list_algorithms

    for algorithm_id in list_algorithms():
        info = algorithm_info(algorithm_id)
        yield info


def algorithms_markdown() -> str:
    """Return the Markdown table of registered algorithms (as in the README)."""
    lines = ["| id | estimator | streaming | sparse input | memory | source |",
             "| --- | --- | --- | --- | --- | --- |"]
    for info in _rows():
        lines.append(
            f"| `{info['id']}` | `{info['class'].__name__}` | "
            f"{'yes' if info['streaming'] else 'no'} | {'yes' if info['sparse'] else 'no'} | "
            f"{info['memory']} | {info['source']} |"
        )
    return "\n".join(lines)


def algorithms_text() -> str:
    """Return a plain-text table of registered algorithms."""
    lines = [f"{'id':<14} {'estimator':<22} {'streaming':<9} {'sparse':<6} memory"]
    for info in _rows():
        lines.append(f"{info['id']:<14} {info['class'].__name__:<22} "
                     f"{'yes' if info['streaming'] else 'no':<9} "
                     f"{'yes' if info['sparse'] else 'no':<6} {info['memory']}")
    return "\n".join(lines)


def hyperparameters_text(algorithm_id: str) -> str:
    """Return the declared hyperparameters of one algorithm: name, default, type, grids, doc."""
    import textwrap

    from .._api import algorithm_info

    info = algorithm_info(algorithm_id)
    lines = [f"{info['id']}: {info['name']} ({info['class'].__name__}), {info['source']}", ""]
    for p in info["params"]:
        lines.append(f"{p['name']} = {p['default']!r}    ({p['type']})")
        for key in ("grid", "quick_grid"):
            if p["name"] in info[key]:
                values = ", ".join(f"{v:g}" if isinstance(v, float) else str(v)
                                   for v in info[key][p["name"]])
                lines.append(f"    {key.replace('_', ' ')}: {values}")
        lines.extend(textwrap.wrap(p["doc"], 96, initial_indent="    ",
                                   subsequent_indent="    "))
    return "\n".join(lines)
