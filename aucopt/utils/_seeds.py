"""The range of integer seeds (no NumPy import: the command line reads it at start-up)."""

__all__ = ["MAX_SEED"]

#: The largest integer seed (NumPy's legacy seeds are 32-bit; the CLI's --seed and River's
#: seed are bounded by it)
MAX_SEED = 2**32 - 1
