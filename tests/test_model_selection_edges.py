"""Model selection as users call it: parts of a single class, seeds at numpy's bound,
pandas containers, and the caller's estimator left as it was."""

import numpy as np
import pandas as pd
import pytest

import aucopt
from aucopt.datasets import make_auc_problem
from aucopt.model_selection import (
    convergence_curve,
    evaluate_fold,
    repeated_holdout,
    repeated_kfold,
    train_val_test,
)


def test_a_test_or_validation_part_of_one_class_is_refused_as_kfold_refuses_it():
    """Holdout returned 20 of 20 test parts without a positive (2 in 100 rows), and
    train-val-test a validation part without one, whose AUC is undefined (a search on it
    then kept its first grid point, even with error_score="raise")."""
    y = np.r_[np.ones(2), -np.ones(98)]
    with pytest.raises(ValueError, match="test part of repeat 0 holds only the class"):
        repeated_holdout(y, test_size=0.2, repeats=20)
    y = np.r_[np.ones(30), -np.ones(970)]
    with pytest.raises(ValueError, match="test part .* holds only the class"):
        train_val_test(y, ratios=(4, 1, 0.05), repeats=1)
    with pytest.raises(ValueError, match="validation part .* holds only the class"):
        train_val_test(y, ratios=(4, 0.05, 1), repeats=1)
    y = -np.ones(1000)
    y[::33] = 1  # positives throughout; rows 1 to 10 negative
    X, _ = make_auc_problem(len(y), 3, random_state=0)
    with pytest.raises(ValueError, match="validation part .* holds only the class"):
        evaluate_fold("spam-l2", X, y, np.arange(500), np.arange(500, 1000),
                      validation=np.arange(1, 11), grid="quick", error_score="raise")
    assert len(repeated_holdout(y, test_size=0.2, repeats=3)) == 3  # 6 or 7 positives each


def test_too_few_of_a_class_for_the_parts_is_named_by_the_library():
    """scikit-learn's refusal ("The least populated class in y has only 1 member") named its
    own groups; the library names the parts of the protocol, as k-fold does."""
    from aucopt.model_selection._protocols import given_test_halved

    with pytest.raises(ValueError, match="1 sample.*2 parts of a holdout"):
        repeated_holdout(np.r_[np.ones(1), -np.ones(50)])
    with pytest.raises(ValueError, match="2 sample.*3 parts of train-val-test"):
        train_val_test(np.r_[np.ones(2), -np.ones(50)])
    with pytest.raises(ValueError, match="1 sample.* in the test set, fewer than the 2 parts"):
        given_test_halved(np.r_[np.ones(5), -np.ones(50)], np.r_[np.ones(1), -np.ones(20)])


def test_seeds_at_numpys_bound_work_for_every_repeat():
    y = np.r_[np.ones(10), -np.ones(10)]
    seed = 2**32 - 1
    splits = repeated_kfold(y, folds=5, repeats=2, random_state=seed)
    assert [s.seed for s in splits[::5]] == [seed, 0]
    assert repeated_holdout(y, repeats=2, random_state=seed)[1].seed == 0


def test_convergence_curve_leaves_the_estimator_as_it_was():
    """It trained the estimator passed in: a second call started from the first call's
    model, and a batch estimator kept the last max_iter of the curve (3 instead of 20)."""
    X, y = make_auc_problem(400, 5, separation=1.0, random_state=0)
    parts = (X[:300], y[:300], X[300:], y[300:])
    stream = aucopt.make("spam-l2", random_state=0, max_iter=1)
    first = convergence_curve(stream, *parts, n_points=3)
    second = convergence_curve(stream, *parts, n_points=3)
    np.testing.assert_array_equal(first[1], second[1])
    assert not hasattr(stream, "t_")
    batch = aucopt.make("vrspam-l2", random_state=0)
    convergence_curve(batch, *parts, n_points=3)
    assert batch.get_params()["max_iter"] == 20


def test_evaluate_fold_takes_rows_by_position_from_pandas_and_a_seed_in_params():
    """A Series y with a shuffled index was read by label (AUC 0.662 against 0.7905), a
    DataFrame X failed with a KeyError, and params={"random_state": 3} with a TypeError."""
    X, y = make_auc_problem(200, 5, random_state=0)
    frame = pd.DataFrame(X).assign(label=y).sample(frac=1.0, random_state=1)
    Xa, ys = frame.drop(columns="label").to_numpy(), frame["label"]
    split = repeated_kfold(ys, folds=4, repeats=1)[0]
    args = (split.train, split.test)
    reference = evaluate_fold("spam-l2", Xa, ys.to_numpy(), *args, grid="none").auc
    assert evaluate_fold("spam-l2", Xa, ys, *args, grid="none").auc == reference
    assert evaluate_fold("spam-l2", frame.drop(columns="label"), ys, *args,
                         grid="none").auc == reference
    seeded = evaluate_fold("spam-l2", Xa, ys.to_numpy(), *args, grid="none",
                           params={"random_state": 3})
    assert seeded.params == {"random_state": 3}
    assert seeded.auc == evaluate_fold("spam-l2", Xa, ys.to_numpy(), *args, grid="none",
                                       random_state=3).auc
