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
* :mod:`.proof_cache` (the storage: shipped with the package, or on disk under an HMAC),
  :mod:`.proof_replay` (the provers' results through it, in the text form of :mod:`.proof_codec`),
  :mod:`.loss_record` and :mod:`.kernel_record`: proofs and verified losses kept across processes; a
  verification served from a record runs only :mod:`.loss_declaration` and :mod:`.numpy_code` and imports
  no sympy; :mod:`.catalogue` writes the shipped file; :mod:`.scaled_huber` serves the Huber loss of the
  residual at any threshold m from the shipped m = 1 proof by exact scaling;
* :mod:`.atoms`: what dpcvx knows about each CVXPY atom: one table, keyed by atom class;
* :mod:`.bounded_residual`: L over the residuals a constrained regression can reach: least squares on a ball
  (KST12);
* :mod:`.constraints`: constraint sets: the closed convex set C of Kifer, Smith and Thakurta (COLT 2012), declared
  in CVXPY;
* :mod:`.exact`: exact numbers and doubles: the exact reading of a double, and safe doubles of exact numbers;
* :mod:`.kst12`: pose a verified problem for Kifer, Smith and Thakurta (COLT 2012): a constraint set, a convex
  regularizer;
* :mod:`.prox_form`: the non-smooth part of N (a ||w||_1, group norms) KST12's proximal solver takes, typed;
* :mod:`.prediction_loss`: a regression loss l(p, y) of the prediction and the label, proved to be a loss of the
  residual.
"""
