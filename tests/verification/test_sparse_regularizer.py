"""A regularizer with a scipy.sparse matrix (cp.sum_squares(A @ w), cp.quad_form(w, P)) was refused with "setting an
array element with a sequence" (the check of its constants read the sparse matrix as an array) and a fix that did
not apply; the calculus behind it handles sparse matrices. It is certified as the same matrix dense is."""

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx


@pytest.mark.parametrize("form", ["sum_squares", "quad_form"])
def test_a_sparse_matrix_certifies_as_the_dense_one(form):
    A = sparse.random(5, 3, density=0.6, random_state=0, format="csr") + sparse.eye(5, 3, format="csr")
    matrix = (A if form == "sum_squares" else A.T @ A).tocsr()  # the same entries, sparse and dense

    def regularizer(M):
        return (lambda w: cp.sum_squares(M @ w)) if form == "sum_squares" else (lambda w: cp.quad_form(w, M))

    dense = dpcvx.verify(dpcvx.losses.logistic(), regularizer=regularizer(matrix.toarray()), dim=3)
    given = dpcvx.verify(dpcvx.losses.logistic(), regularizer=regularizer(matrix), dim=3)
    assert given.strong_convexity == dense.strong_convexity
    assert float(given.strong_convexity) == pytest.approx(2 * np.linalg.eigvalsh((A.T @ A).toarray()).min(), rel=1e-9)
