"""Step-size schedules chosen by integer code inside kernels.

The Python names of the codes live in ``SCHEDULE_CODES`` here, the single
source of truth; algorithm specs map their public schedule names to these.
"""

import numpy as np
from numba import njit

__all__ = ["CONSTANT", "INV_SQRT", "INV_POWER", "INV_LINEAR", "SCHEDULE_CODES", "step_size"]

CONSTANT = 0  # eta_t = scale
INV_SQRT = 1  # eta_t = scale / sqrt(t)
INV_POWER = 2  # eta_t = scale / t**power
INV_LINEAR = 3  # eta_t = scale / (t + 1)

SCHEDULE_CODES = {
    "constant": CONSTANT,
    "inv_sqrt": INV_SQRT,
    "inv_power": INV_POWER,
    "inv_linear": INV_LINEAR,
}


@njit(cache=True, nogil=True)
def step_size(code, scale, power, t):
    """Return the step size of schedule ``code`` at step ``t`` (t >= 1).

    Parameters
    ----------
    code : int
        One of ``CONSTANT``, ``INV_SQRT``, ``INV_POWER``, ``INV_LINEAR``.
    scale : float
        Multiplier of the schedule.
    power : float
        Exponent of ``INV_POWER``.
    t : int
        Step counter, starting at 1.

    Returns
    -------
    float
        The step size ``eta_t``.
    """
    if code == INV_SQRT:
        return scale / np.sqrt(t)
    if code == INV_POWER:
        return scale / t**power
    if code == INV_LINEAR:
        return scale / (t + 1.0)
    return scale
