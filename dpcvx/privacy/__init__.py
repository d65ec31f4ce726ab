"""Calibrate, draw noise, account: the only layer that draws a release's random numbers.

* :mod:`.calibration`: the calibration family: the typed ``Noise``, the base classes and what every
  calibration answers (noise moments, expected noise, privacy curve, its certificate line and record);
* :mod:`.calibrate`: epsilon', Delta and the noise scale of output and
  objective perturbation (JMLR 2011, Algorithms 1 and 2) with a public tolerance;
* :mod:`.noise`: the l2-Laplace (Gamma-radius) noise and the release grid;
* :mod:`.exact_sampling`: exact samplers over the rationals (discrete Laplace and Gaussian, Bernoulli(exp(-x)));
* :mod:`.lattice`: releasing on a public lattice, with the floating-point charges;
* :mod:`.float_guarantee`: the floating-point guarantee each certificate names;
* :mod:`.lattice_output`, :mod:`.lattice_objective`, :mod:`.float_safe`: the linear releases with exact
  lattice noise (``PrivateERM(float_safe=True)``) and their dispatch;
* :mod:`.exponential`: the exponential mechanism, drawn exactly;
* :mod:`.gaussian`: the analytic Gaussian mechanism (Balle and Wang 2018);
* :mod:`.least_value`: the bisection of the Gaussian calibrations (the least double passing a decreasing profile), its
  tests far from the boundary inferred;
* :mod:`.kernel_calibrate`: calibration of the kernel learners (Jain and Thakurta 2013);
* :mod:`.composition`, :mod:`.accountant`: composing releases and the budget;
* :mod:`.budget_part`: a refusal of a budget above a mechanism's range said on the epsilon the user set, where a
  composite checked a part of it;
* :mod:`.rng`: the noise source (OS entropy unless a seed is given);
* :mod:`.process_token`: which process an object that holds a budget belongs to (a copy elsewhere spends none);
* :mod:`.ball_sampler`: uniform points of a ball (TDIL's net);
* :mod:`.adassp`: AdaSSP: private least squares by sufficient statistics with an adaptive ridge (Wang, UAI 2018);
* :mod:`.calibrate_gaussian`: (epsilon, delta) calibrations of the linear learner: Gaussian objective and output
  perturbation;
* :mod:`.lam_rule`: ``lam="auto"``: the regularization weight Lam chosen from public quantities only;
* :mod:`.lattice_predictions`: TDDL's noisy predictions on a public lattice with exact integer noise (``TDDL(...,
  float_safe=True)``; docs/theory.md, section "Floating point: the other releases");
* :mod:`.lattice_tdil`: TDIL's rounds with exact lattice noise and charged score errors (``TDIL(...,
  float_safe=True)``; docs/theory.md, section "Floating point: the other releases");
* :mod:`.linear_calibration`: the calibration of a linear release: the choice of Algorithm 1 or 2, pure or
  Gaussian, for a verified problem;
* :mod:`.neighbours`: the neighbour relation a privacy guarantee is proved for, and the one proved conversion
  between relations;
* :mod:`.objective_gaussian`: (epsilon, delta) objective perturbation with Gaussian noise: the calibration core;
* :mod:`.partition`: the randomness of private tuning (Chaudhuri, Monteleoni and Sarwate, JMLR 2011, Algorithm 4);
* :mod:`.privacy_curve`: privacy curves: what a release costs, in a form other accountants can compose;
* :mod:`.column_ranges`: private per-column ranges by a noisy binary search of Gaussian counts (the map of
  ``DPLinearRegression``'s default, mechanisms "gradient-ranged" and "adassp-ranged");
* :mod:`.gradient_descent`: the calibration of noisy gradient descent on clipped residuals on privately mapped rows
  (``DPLinearRegression``'s default where it searches a private range, mechanism "gradient-ranged");
* :mod:`.column_histogram`: private per-column ranges from noisy histograms with discrete Laplace counts (pure
  epsilon; the classifiers' opt-in ``column_statistics="ranges"``);
* :mod:`.column_sums`: the lattice contributions of private column statistics and their L1 sensitivity;
* :mod:`.quantile`: a private bound on the row norms: the exponential-mechanism quantile (Smith, STOC 2011), drawn
  exactly;
* :mod:`.random_features`: the random draws of random Fourier features (Rahimi and Recht, NIPS 2007);
* :mod:`.stopping`: random stopping for private selection (Papernot and Steinke, ICLR 2022; Liu and Talwar, STOC
  2019).

The audits, which run whole learners, are :mod:`dpcvx.models.audit` and :mod:`dpcvx.models.release_audit`.
"""
