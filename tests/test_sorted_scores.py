"""The sorted multiset behind the exact streaming AUC (aucopt.metrics._sorted)."""

import bisect
import time

import numpy as np
import pytest

from aucopt.metrics import StreamingROCAUC, roc_auc_score
from aucopt.metrics._sorted import LOAD, SortedScores


def test_ranks_insertions_and_removals_match_a_sorted_list():
    rng = np.random.default_rng(0)
    ours, ref = SortedScores(), []
    values = np.round(rng.normal(size=6 * LOAD), 1).tolist()  # many ties, several splits
    for i, v in enumerate(values):
        ours.add(v)
        bisect.insort(ref, v)
        if i % 3 == 2:  # remove an earlier value
            gone = values[i // 2]
            ours.remove(gone)
            ref.remove(gone)
        if i % 97 == 0:
            assert ours.tolist() == ref and len(ours) == len(ref)
            for q in (-1.0, 0.0, 0.3, v, 5.0):
                assert ours.bisect_left(q) == bisect.bisect_left(ref, q)
                assert ours.bisect_right(q) == bisect.bisect_right(ref, q)
    while ref:  # empty it again, buckets and all
        v = ref.pop(len(ref) // 2)
        ours.remove(v)
    assert len(ours) == 0 and ours.tolist() == [] and ours.bisect_left(1.0) == 0
    with pytest.raises(ValueError):
        ours.remove(1.0)


def test_streaming_auc_is_exact_and_does_not_grow_with_the_stream():
    rng = np.random.default_rng(1)
    n = 60_000
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n) + y, 2)
    metric = StreamingROCAUC(pos_label=True)
    times = []
    for i in range(n):
        start = time.perf_counter()
        metric.update(bool(y[i]), float(s[i]))
        times.append(time.perf_counter() - start)
    assert metric.get() == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    # no timing assert (a shared machine); the O(n) memmove of one sorted list is gone:
    # the structure holds buckets of at most 2 * LOAD values
    assert max(len(b) for b in metric._neg._buckets) < 2 * LOAD
