"""The scikit-learn face of dpcvx: estimators that follow scikit-learn's conventions (``fit``, ``predict``,
``get_params``, pipelines, ``check_estimator``) over the learners of :mod:`dpcvx.models`, with the warnings
they give after a fit beside them. Needs the optional extra ``dpcvx[sklearn]``.

* :mod:`.classifiers`: :class:`DPLogisticRegression`, :class:`DPHuberSVM` and :class:`DPERMClassifier`
  (binary and one-vs-rest multiclass, over :class:`~dpcvx.models.erm.PrivateERM`);
* :mod:`.regressors`: :class:`DPLinearRegression` (AdaSSP, output or objective perturbation) and
  :class:`DPHuberRegressor`;
* :mod:`.inputs`: X and y checked as scikit-learn checks them, raised as dpcvx's typed errors, a memmap or
  Dask X checked without loading it, and the accountant a fit charges;
* :mod:`.estimator_plan`: :class:`~dpcvx.sklearn.estimator_plan.EstimatorPlan`, an estimator's fit planned once
  (``estimator.plan(X, y)``) and executed per data set (:func:`dpcvx.tune` fits every run of a candidate from it);
* :mod:`.noise_warning`: :class:`NoiseDominatesWarning` (the noise's share of the released weights, from
  public quantities of the certificate) and ``SmallTableWarning``;
* :mod:`.adassp_warning`: the same warning's rule for AdaSSP's release.

Nothing here reads private data except through a learner's ``fit``; each warning is a function of the
certificate and public inputs (docs/theory.md, sections 21 and 30). The public names are exported by
:mod:`dpcvx` itself (``dpcvx.DPLogisticRegression``).
"""
