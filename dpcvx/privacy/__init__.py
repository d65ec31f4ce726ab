"""Calibrate, draw noise, account, audit: the only layer that draws random numbers.

* :mod:`.calibrate`: epsilon', Delta and the noise scale of output and
  objective perturbation (JMLR 2011, Algorithms 1 and 2) with a public tolerance;
* :mod:`.noise`: the l2-Laplace (Gamma-radius) noise and the release grid;
* :mod:`.exact`: exact samplers over the rationals (discrete Laplace and Gaussian, Bernoulli(exp(-x)));
* :mod:`.lattice`: releasing on a public lattice, with the floating-point charges;
* :mod:`.float_guarantee`: the floating-point guarantee each certificate names;
* :mod:`.lattice_output`, :mod:`.lattice_objective`, :mod:`.float_safe`: the linear releases with exact
  lattice noise (``PrivateERM(float_safe=True)``) and their dispatch;
* :mod:`.exponential`: the exponential mechanism, drawn exactly;
* :mod:`.gaussian`: the analytic Gaussian mechanism (Balle and Wang 2018);
* :mod:`.kernel_calibrate`: calibration of the kernel learners (Jain and Thakurta 2013);
* :mod:`.composition`, :mod:`.accountant`: composing releases and the budget;
* :mod:`.rng`: the noise source (OS entropy unless a seed is given);
* :mod:`.ball_sampler`: uniform points of a ball (TDIL's net);
* :mod:`.audit`: empirical audits and the release-diff check.
"""
