"""The learners: verify, calibrate, charge the budget once, solve, draw noise, release.

* :mod:`.erm`: :class:`PrivateERM`, linear models with a declared loss and regularizer;
* :mod:`.kernel_learner`: what the kernel learners share; :mod:`.tddl`,
  :mod:`.pinp`, :mod:`.tdil`: Jain and Thakurta (ICML 2013);
* :mod:`.kernels`: kernels with public feature bounds, random Fourier features;
* :mod:`.tuning`: private parameter tuning (JMLR 2011, Algorithm 4).
"""
