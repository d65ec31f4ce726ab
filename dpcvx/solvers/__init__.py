"""Solve the perturbed problem exactly, or to a public tolerance the proof covers.

* :mod:`.objective`: the perturbed ERM objective J_b and its optimality residual;
* :mod:`.linear`: damped Newton (the fast path) and the CVXPY conic path;
* :mod:`.cg`: conjugate gradients on Newton's system, and the Cholesky factors that precondition it;
* :mod:`.kernel`: the exact kernel ERM (Newton and a dual interior point).

Solvers read private data; nothing they measure enters a release (it goes to
the learner's ``diagnostics_``, marked not private).

* :mod:`.budget`: the proved iteration budget of the safeguarded Newton path, from public constants and the noise;
* :mod:`.blockwise`: the perturbed objective over row blocks: exact Newton on inputs larger than memory;
* :mod:`.distinct`: repeated records solved once: the distinct (row, label) records of a dense X and their
  weights, whose minimiser starts Newton on all rows;
* :mod:`.choice`: which solver reaches the public gradient bound for a verified problem: the choice of a linear
  learner;
* :mod:`.gram`: the n x n Gram matrix of a kernel ERM, dense or as a low-rank factor K = F F^T;
* :mod:`.proximal`: proximal Newton for composite objectives: L1 or group norms and/or a constraint set (KST12
  problems).
"""
