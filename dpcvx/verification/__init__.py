"""Declare -> verify: the only layer that reads the user's CVXPY callables and the only user of sympy.

* :mod:`.verifier`: :func:`verify` and :func:`verify_problem`, which build the
  :class:`~.problem.VerifiedProblem` every later layer works from;
* :mod:`.translate`: the table of CVXPY atom facts and the CVXPY -> sympy translation;
* :mod:`.symbolic`, :mod:`.validated`, :mod:`.numeric`: the three routes to a
  constant (proof, validated bound, opt-in estimate);
* :mod:`.regularizer`: the regularizer calculus (strong convexity, gradient);
* :mod:`.per_record`: the verified scalar loss instantiated per record;
* :mod:`.kernel_loss`: the same verification for the kernel learners' losses;
* :mod:`.certificate`: the conditions proved (:mod:`.condition`), and how;
* :mod:`.verdict`: the one verdict per mechanism: the granting theorem and the conditions it needs;
* :mod:`.deadline`: worker processes that bound the time a proof may take.
"""
