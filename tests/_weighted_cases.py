"""Random binary problems with integer sample weights, for the weighted metrics' tests."""

import numpy as np


def weighted_cases(seed: int, count: int, tied: bool, smallest: int = 2):
    """Yield ``count`` triples ``(y, scores, weights)``: both classes present (rows 0 and 1
    have weight 1), scores tied in groups when ``tied``, weights in {0, 1, 2, 3}."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(smallest, 60))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = rng.integers(0, 4, n).astype(float) if tied else rng.normal(size=n)
        w = rng.integers(0, 4, n).astype(float)
        w[:2] = 1.0
        yield y, s, w
