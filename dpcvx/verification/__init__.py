"""Declare -> verify: the only layer that reads the user's CVXPY callables and the only user of sympy.

* :mod:`.problem`: the contract every later layer works from: :class:`~.problem.VerifiedProblem`
  and the verified loss and regularizer it holds (the solvers import nothing else of this package
  but the constraint set and the kernel loss);
* :mod:`.verifier`: :func:`verify` and :func:`verify_problem`, which build it; :mod:`.loss_analysis`
  settles each loss condition by the three routes;
* :mod:`.translate`: the table of CVXPY atom facts and the CVXPY -> sympy translation;
* :mod:`.symbolic`, :mod:`.validated`, :mod:`.numeric`: the three routes to a
  constant (proof, validated bound, opt-in estimate); the validated bounds rest on
  :mod:`.interval` (the interval evaluator) and :mod:`.enclosure` (the branch and bound);
* :mod:`.regularizer`: the regularizer calculus (strong convexity, gradient), a subpackage;
* :mod:`.per_record`: the verified scalar loss instantiated per record;
* :mod:`.kernel_loss`: the same verification for the kernel learners' losses;
* :mod:`.certificate`: the conditions proved (:mod:`.condition`), and how;
* :mod:`.verdict`: the one verdict per mechanism: the granting theorem and the conditions it needs;
* :mod:`.deadline`: worker processes that bound the time a proof may take;
* :mod:`.proof_cache` and :mod:`.loss_record`: proofs and verified losses kept across processes
  (shipped with the package, or on disk under an HMAC); a verification served from a record runs
  only :mod:`.loss_declaration` and :mod:`.numpy_code` and imports no sympy.
"""
