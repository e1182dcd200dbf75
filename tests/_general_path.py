"""The reference of the row-path tests: an estimator whose one-row CSR ``partial_fit``
chunks take the general path (``_fit_rows``), not the row path they are checked against."""


def general(estimator):
    """Return ``estimator``, its one-row CSR chunks learnt on the general path."""
    estimator._one_row_path = False
    return estimator
