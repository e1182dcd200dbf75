"""LibAUC's linear AUC learners (PESG on AUCMLoss, PDSCA on CompositionalAUCLoss), torch CPU.

The model is ``torch.nn.Linear`` with a sigmoid output, trained as LibAUC's tutorials train
their models: shuffled mini-batches of 128, ``lr=0.1``, ``margin=1``, ``epoch_decay=2e-3``,
``weight_decay=1e-5`` (the optimisers' defaults), here 20 epochs with the learning rate divided
by 10 at epochs 10 and 15 (``update_regularizer``). One torch thread (as every other tool runs
on one core here).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

__all__ = ["LibAUCLinear"]

BATCH = 128
EPOCHS = 20
DECAY_AT = (10, 15)


class LibAUCLinear:
    """``fit(X, y)`` / ``scores(X)`` around a LibAUC optimiser on a linear model."""

    def __init__(self, optimiser: str, seed: int = 0, lr: float = 0.1, epochs: int = EPOCHS):
        self.optimiser, self.seed, self.lr, self.epochs = optimiser, seed, lr, epochs

    def _batch(self, X, rows):
        import torch

        part = X[rows]
        part = part.toarray() if sp.issparse(part) else part
        return torch.from_numpy(np.ascontiguousarray(part, dtype=np.float32))

    def fit(self, X, y):
        import torch
        from libauc.losses import AUCMLoss, CompositionalAUCLoss
        from libauc.optimizers import PDSCA, PESG

        torch.set_num_threads(1)
        torch.manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        self.model = torch.nn.Linear(X.shape[1], 1)
        labels = torch.from_numpy((np.asarray(y) > 0).astype(np.float32))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # batches without positives; verbose prints
            if self.optimiser == "pesg":
                loss_fn = AUCMLoss()
                opt = PESG(self.model.parameters(), loss_fn=loss_fn, lr=self.lr, verbose=False,
                           device="cpu")
            else:
                loss_fn = CompositionalAUCLoss()
                opt = PDSCA(self.model.parameters(), loss_fn=loss_fn, lr=self.lr, verbose=False,
                            device="cpu")
            for epoch in range(self.epochs):
                if epoch in DECAY_AT:
                    opt.update_regularizer(decay_factor=10)
                order = rng.permutation(X.shape[0])
                for start in range(0, X.shape[0], BATCH):
                    rows = order[start:start + BATCH]
                    preds = torch.sigmoid(self.model(self._batch(X, rows)))
                    loss = loss_fn(preds, labels[rows])
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
        return self

    def scores(self, X):
        import torch

        with torch.no_grad():
            out = [self.model(self._batch(X, np.arange(s, min(s + 65536, X.shape[0]))))
                   for s in range(0, X.shape[0], 65536)]
        return torch.cat(out).numpy().ravel().astype(np.float64)
