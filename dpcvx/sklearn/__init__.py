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
:mod:`dpcvx` itself (``dpcvx.DPLogisticRegression``), and here too (``from dpcvx.sklearn import
DPLogisticRegression``, the estimators and :class:`~dpcvx.data.kernels.RandomFourierFeatures`), loaded on first use.
"""

import importlib as _importlib
from typing import Any as _Any

#: The public names this package re-exports, and the module (relative to dpcvx) that defines each
_EXPORTS = {"DPLogisticRegression": "sklearn.classifiers", "DPHuberSVM": "sklearn.classifiers",
            "DPERMClassifier": "sklearn.classifiers", "DPLinearRegression": "sklearn.regressors",
            "DPHuberRegressor": "sklearn.regressors", "RandomFourierFeatures": "data.kernels"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> _Any:
    """The estimators as ``dpcvx.sklearn.NAME`` (the module's docstring and the docs name this package), each the
    class ``dpcvx.NAME`` is: imported on first use, so ``import dpcvx.sklearn.inputs`` loads no estimator."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'dpcvx.sklearn' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"dpcvx.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
