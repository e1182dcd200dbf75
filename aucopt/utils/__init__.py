"""Small helpers shared by every layer above the kernels."""
