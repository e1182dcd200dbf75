"""How the step calibration chooses among the steps of its ladder that it has tried
(:func:`~aucopt.algorithms._calibrate.calibrate_step`): ``trials`` map a step to the
objective of its brief run (inf where it failed)."""

from __future__ import annotations

import numpy as np

__all__ = ["backed_off", "chosen_step", "near_steps", "past_the_best", "scale_free"]


def scale_free(spec) -> bool:
    """Whether the calibration's objective is scale-free (see
    :func:`~aucopt.algorithms._objectives.regularised`)."""
    return bool(getattr(spec.calibration.objective, "scale_free", False))


def chosen_step(spec, trials: dict) -> float:
    """Return the step of ``trials`` that the calibration chooses: the smallest within the
    tolerance of the lowest objective (safer, same fit), or for a scale-free objective,
    which scores every step too small to leave the first direction (the class-mean
    difference) alike, the middle one of those; the smallest if every step failed (which
    divergence recovery lowers if needed)."""
    near = near_steps(trials, spec.calibration.tolerance)
    if not near:
        return min(trials)
    return near[(len(near) - 1) // 2 if scale_free(spec) else 0]


def near_steps(trials: dict, tolerance: float) -> list[float]:
    """Return the steps whose objective is within ``tolerance`` of the lowest, in order."""
    finite = {k: v for k, v in trials.items() if np.isfinite(v)}
    if not finite:
        return []
    low = min(finite.values())
    return sorted(k for k, v in finite.items() if v <= low + tolerance * abs(low))


def past_the_best(trials: dict, tolerance: float) -> bool:
    """Whether the two largest steps tried are both out of reach of the best so far.

    The ladder is climbed from its smallest step; once two steps in a row are neither
    finite nor within ``tolerance`` of the lowest objective, the objective has
    risen twice past its minimum and larger steps cannot change the choice. Not for a
    ``scale_free`` objective: it is flat over the steps too small to leave the first
    direction, can rise past them and fall again at steps large enough to converge
    (SOLAM on 1% positives: 0.171, 0.181, 0.187, then 0.163 at 64 times the first step).
    """
    near = near_steps(trials, tolerance)
    return len(trials) >= 3 and bool(near) and near[-1] < sorted(trials)[-2]


def backed_off(spec, trials: dict, rung: float) -> float:
    """Return the step to take when the choice backs off to ``rung`` (a step of the ladder
    below the one chosen): ``rung`` itself, unless it was tried and its objective is not
    within the tolerance of the lowest among the steps tried at or below it (the
    objective is not monotone near the steps that fail); then :func:`chosen_step` of those
    steps."""
    below = {k: v for k, v in trials.items() if k <= rung * (1.0 + 1e-9)}
    near = near_steps(below, spec.calibration.tolerance)
    tried = [k for k in below if k >= rung * (1.0 - 1e-9)]
    if not near or not tried or tried[0] in near:
        return rung
    return chosen_step(spec, below)
