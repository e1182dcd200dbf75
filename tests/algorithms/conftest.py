"""Tests of the papers' algorithms against their transcriptions: ``precondition=None``."""

import pytest


@pytest.fixture(autouse=True)
def _papers_algorithm(papers_algorithm):
    """Every test here runs the papers' algorithm (see ``papers_algorithm``)."""
