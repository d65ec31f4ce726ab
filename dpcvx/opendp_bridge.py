"""A dpcvx learner as an OpenDP measurement (optional: ``pip install "dpcvx[opendp]"``).

:func:`as_opendp_measurement` wraps one fit at a fixed budget as an OpenDP
``Measurement``, so that OpenDP's compositors (``make_adaptive_composition``,
``make_sequential_composition``) count it with the rest of an OpenDP analysis
and refuse what exceeds their budget, before the fit runs:

* input domain: a user domain whose members are pairs ``(X, y)`` (the fit's data); OpenDP does not
  apply a user domain's member check, so the measurement applies it before the fit;
* input metric: the neighbour relation of the release
  (:mod:`dpcvx.privacy.neighbours`): ``change_one_distance`` for replace-one
  (one record replaced is distance 1), ``symmetric_distance`` for add-remove
  (one record added or removed is distance 1);
* output measure: ``max_divergence`` (pure epsilon) or
  ``approximate(max_divergence)`` (epsilon, delta);
* privacy map: distance 0 costs nothing; distance k >= 1 costs the release's
  (epsilon, delta) for k = 1 and its group-privacy bound beyond
  (:func:`~dpcvx.privacy.neighbours.group_epsilon_delta`): k epsilon for a pure
  release; (k epsilon, min(1, delta sum_{i<k} e^(i epsilon))) for delta > 0, where
  delta = 1 (at eps = 1, delta = 1e-6 from k = 15) is a true statement that
  guarantees nothing, which a compositor's budget refuses;
* function: ``learner.fit(X, y, epsilon, delta=delta, **fit_params)``; the
  released model is returned after its certificate is checked against the map
  (its epsilon, delta and relation), and refused otherwise.

What the measurement cannot run is refused when it is made, with an InputError: a
``fit`` that does not take those arguments (an estimator such as
``DPLogisticRegression``, which holds its budget in its constructor; TDDL without
``Z`` or with ``neighbours``, which it does not offer), a pure-epsilon
measurement under add-remove (the pure mechanisms are derived for replace-one), PINP
(an interactive curator: its fit returns the curator, which answers queries later, not one
release with a certificate), and
options the learner's own ``check_options`` refuses without data, with the error its
``fit`` would raise. Every dpcvx learner has one: ``PrivateERM`` and
``PrivateMulticlassERM`` (the budget, the learner's settings, the mechanism, the split,
the neighbour relation, ``n_public`` with delta below 1/n_public, the seed; the
multiclass learner checks the total budget, then its binary learner's options at each
class's share), ``PrivateLinearRegression`` (the budget, delta > 0, the settings, the
neighbour relation, the seed), ``TDDL``, ``PINP`` and ``TDIL`` (the budget, the seed,
the learner's settings: lam, the kernel, the loss, and ``span``, ``max_queries``,
``input_bound``... of each). What only the data can show (delta below 1/n where n is
the data's, a bad ``Z``, the rows) is refused when the measurement is called, before
the fit charges or draws anything; a learner without ``check_options`` is checked
then too.

OpenDP's user measurements need ``dp.enable_features("contrib",
"honest-but-curious")``: OpenDP has not vetted the map, which is dpcvx's
certificate. The measurement holds the learner: each call fits anew.
"""

from __future__ import annotations

import inspect
from typing import Any

from .exceptions import InputError
from .models.pinp import PINP
from .privacy.neighbours import Neighbours, fit_relation, group_epsilon_delta
from .validation import check_delta, check_epsilon

__all__ = ["as_opendp_measurement", "DATA_DOMAIN"]

DATA_DOMAIN = "dpcvx (X, y)"  # the identifier of the user domain of the fit's data


def _opendp() -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as error:
        raise ImportError('as_opendp_measurement needs OpenDP: pip install "dpcvx[opendp]"') from error
    return dp


def as_opendp_measurement(learner: Any, epsilon: float, delta: float = 0.0, **fit_params: Any) -> Any:
    """One fit of ``learner`` at (``epsilon``, ``delta``) as an OpenDP ``Measurement`` (module docstring).

    Parameters
    ----------
    learner : object
        A dpcvx learner (``PrivateERM``, ``PrivateMulticlassERM``,
        ``PrivateLinearRegression``, ``TDDL``, ...): anything whose
        ``fit(X, y, epsilon, delta=..., **fit_params)`` returns a release.
    epsilon : float
        The budget of one fit, > 0.
    delta : float
        0 for a pure-epsilon release (measure ``max_divergence``), else in
        (0, 1) (measure ``approximate(max_divergence)``).
    **fit_params
        Passed to ``fit`` (``mechanism``, ``random_state``, ``Z``, ...).
        ``neighbours`` picks the input metric ("replace-one", the default, or
        "add-remove"); ``accountant`` is refused: OpenDP's compositor is the
        accountant here.

    Returns
    -------
    opendp.mod.Measurement
        Called on ``(X, y)``, it fits and returns the release.

    Raises
    ------
    InputError
        A learner whose ``fit`` does not take ``(X, y, epsilon, delta=delta,
        **fit_params)``, a bad budget, an ``accountant``, add-remove at
        delta = 0, an option the learner's ``check_options`` refuses (the
        error its fit would raise; module docstring); when called, data that is
        not a pair ``(X, y)`` (before the fit) and a release whose certificate
        is not the map's (a larger epsilon or delta, another relation).
    ImportError
        Without OpenDP.
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    if not callable(getattr(learner, "fit", None)):
        raise InputError(f"as_opendp_measurement takes a dpcvx learner with a fit method, got {type(learner).__name__}")
    if "accountant" in fit_params:
        raise InputError("as_opendp_measurement takes no accountant: OpenDP's compositor counts the budget")
    if "epsilon" in fit_params or "delta" in fit_params:
        raise InputError("pass epsilon and delta as the arguments of as_opendp_measurement, not as fit_params")
    _check_fit_call(learner, epsilon, delta, fit_params)
    _check_options(learner, epsilon, delta, fit_params)
    if isinstance(learner, PINP):
        raise InputError("PINP is an interactive curator: its fit charges the budget once and returns the curator, "
                         "which then answers each query with noise of its own; that is not one release a measurement "
                         "can return, so its fit is not wrapped (OpenDP's compositor would count the budget, then get "
                         "no certificate). Fit PINP with a dpcvx PrivacyAccountant, or wrap TDDL or TDIL, which "
                         "release one model")
    relation = fit_relation(fit_params.get("neighbours", Neighbours.REPLACE_ONE.value), delta)
    dp = _opendp()
    dp.enable_features("contrib", "honest-but-curious")

    def member(data: Any) -> bool:
        return isinstance(data, tuple) and len(data) == 2

    domain = dp.user_domain(DATA_DOMAIN, member=member)
    metric = dp.change_one_distance() if relation is Neighbours.REPLACE_ONE else dp.symmetric_distance()
    measure = dp.max_divergence() if delta == 0 else dp.approximate(dp.max_divergence())

    def cost(d_in: int) -> Any:
        if d_in < 0:
            raise InputError(f"a distance between data sets is >= 0, got {d_in}")
        if d_in == 0:
            return 0.0 if delta == 0 else (0.0, 0.0)
        group = (epsilon, delta) if d_in == 1 else group_epsilon_delta(epsilon, delta, int(d_in))
        return group[0] if delta == 0 else group

    def release(data: Any) -> Any:
        if not member(data):
            shape = f"a tuple of {len(data)}" if isinstance(data, tuple) else f"a {type(data).__name__}"
            raise InputError(f"the measurement's input is a pair (X, y), the members of its domain "
                             f"{DATA_DOMAIN!r}; got {shape}. Nothing was fitted")
        X, y = data
        model = learner.fit(X, y, epsilon, delta=delta, **fit_params)
        certificate = getattr(model, "certificate", None)
        if certificate is None:
            raise InputError(f"{type(learner).__name__}.fit returned no certificate: not a dpcvx release")
        spent = float(getattr(certificate, "total_epsilon", certificate.epsilon)), float(certificate.delta)
        proved = certificate.privacy_curve.neighbours
        if spent[0] > epsilon or spent[1] > delta or proved is not relation:
            raise InputError(f"the release's certificate (epsilon {spent[0]:g}, delta {spent[1]:g}, {proved}) is "
                             f"not the measurement's ({epsilon:g}, {delta:g}, {relation}): not released")
        return model

    return dp.m.make_user_measurement(domain, metric, measure, release, cost)


def _check_options(learner: Any, epsilon: float, delta: float, fit_params: dict[str, Any]) -> None:
    """Run, when the measurement is made, the learner's own checks of the options that need no data
    (``check_options``: every dpcvx learner's, the module docstring), with the fit options it names: a budget,
    mechanism, split, relation, seed or setting the fit would refuse is refused here, an InputError, not inside
    OpenDP's compositor."""
    check = getattr(learner, "check_options", None)
    if callable(check):
        named = inspect.signature(check).parameters
        check(epsilon, delta=delta, **{name: value for name, value in fit_params.items() if name in named})


def _check_fit_call(learner: Any, epsilon: float, delta: float, fit_params: dict[str, Any]) -> None:
    """Refuse, when the measurement is made, a learner whose ``fit`` cannot take the call the measurement
    makes, ``fit(X, y, epsilon, delta=delta, **fit_params)``: the call binds to ``fit``'s signature or the
    measurement is not made (it would fail only when called, inside OpenDP's compositor)."""
    try:
        inspect.signature(learner.fit).bind(None, None, epsilon, delta=delta, **fit_params)
    except TypeError as error:
        raise InputError(
            f"as_opendp_measurement calls {type(learner).__name__}.fit(X, y, epsilon, delta=delta, "
            f"**fit_params) with fit_params {sorted(fit_params)}, which that fit does not take ({error}). It "
            "takes a dpcvx learner (PrivateERM, PrivateMulticlassERM, PrivateLinearRegression, TDDL with Z, "
            "TDIL) and that learner's own fit options; an estimator (DPLogisticRegression, "
            "DPLinearRegression, ...) holds its budget in its constructor: wrap the learner it fits, such as "
            "PrivateERM with its loss") from None
