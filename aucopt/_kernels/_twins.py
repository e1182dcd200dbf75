"""Specialised kernels and the generic kernels they specialise.

Some families have, besides the kernel that serves every input, a specialised
twin for one case (dense rows, CSR rows kept in a lazy form). Each twin is
declared with :func:`specialises`, naming its generic kernel; the twins share
their step and stage logic with it through inlined helpers, so that only the
sweep over the row differs. ``tests/test_twins.py`` runs every registered
algorithm with and without its twins on dense and CSR data and compares the
results, and checks that every declared twin was run.
"""

__all__ = ["SPECIALISED", "specialises"]

SPECIALISED: dict = {}  # specialised dispatcher -> its generic dispatcher


def specialises(generic):
    """Declare the decorated kernel a specialised twin of ``generic``.

    Parameters
    ----------
    generic : numba dispatcher
        The kernel that computes the same thing for every input.

    Returns
    -------
    callable
        The decorator; it registers the kernel and returns it unchanged.
    """
    def register(kernel):
        SPECIALISED[kernel] = generic
        return kernel

    return register
