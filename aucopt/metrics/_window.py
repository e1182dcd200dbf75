"""The last ``size`` samples of a stream, with what each update pushed out, so that the most
recent updates can be reverted exactly (River's ``revert`` protocol)."""

from __future__ import annotations

from collections import deque

__all__ = ["SlidingWindow"]


class SlidingWindow:
    """The most recent ``size`` samples, and the sample each of them pushed out.

    ``push`` adds a sample and returns the one that left (None while the window fills);
    ``pop`` removes the most recent sample and returns the one it had pushed out, which is
    back at the oldest end: a window reverted update by update passes through the states
    it had. Memory: two deques of at most ``size`` entries.

    Parameters
    ----------
    size : int
        Number of samples kept (at least 1).
    """

    def __init__(self, size: int):
        self.size = size
        self.samples = deque()
        self._left = deque(maxlen=size)  # the sample each kept one pushed out (or None)

    def __len__(self) -> int:
        return len(self.samples)

    def push(self, sample):
        """Add ``sample``; return the oldest sample if it left the window, else None."""
        self.samples.append(sample)
        out = self.samples.popleft() if len(self.samples) > self.size else None
        self._left.append(out)
        return out

    def last(self):
        """Return the most recent sample (None if empty)."""
        return self.samples[-1] if self.samples else None

    def pop(self):
        """Remove the most recent sample; return the sample it had pushed out (None: none,
        or one pushed out too long ago to be kept), now back in the window."""
        self.samples.pop()
        back = self._left.pop() if self._left else None
        if back is not None:
            self.samples.appendleft(back)
        return back
