"""Limits that keep the code easy to live in (issue #14): short kernel signatures, small files."""

import ast
from pathlib import Path

import aucopt

ROOT = Path(aucopt.__file__).parent
MAX_KERNEL_ARGS = 12  # state goes in a typed tuple (aucopt._kernels._state), not 20 arrays
MAX_LINES = 500


def test_no_kernel_takes_more_than_twelve_arguments():
    too_long = []
    for path in sorted((ROOT / "_kernels").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and len(node.args.args) > MAX_KERNEL_ARGS:
                too_long.append(f"{path.name}:{node.lineno} {node.name} "
                                f"({len(node.args.args)} arguments)")
    assert not too_long, "\n".join(too_long)


def test_no_module_exceeds_five_hundred_lines():
    long_files = [f"{p.relative_to(ROOT)}: {n}" for p in sorted(ROOT.rglob("*.py"))
                  if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert not long_files, "\n".join(long_files)


def test_every_algorithm_declares_its_hyperparameters_and_state():
    missing = [a for a in aucopt.list_algorithms()
               if not aucopt.algorithms.get_algorithm(a).params
               or not aucopt.algorithms.get_algorithm(a).state]
    assert not missing, f"specs without params= or state=: {missing}"
