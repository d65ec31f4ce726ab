"""A dpcvx learner or estimator as an OpenDP measurement (optional: ``pip install "dpcvx[opendp]"``).

:func:`as_opendp_measurement` wraps one fit at a fixed budget as an OpenDP
``Measurement``, so that OpenDP's compositors (``make_adaptive_composition``,
``make_composition``) count it with the rest of an OpenDP analysis
and refuse what exceeds their budget, before the fit runs:

* input domain: a user domain whose members are pairs ``(X, y)`` (the fit's data), or with
  ``weighted=True`` triples ``(X, y, sample_weight)`` (finite real weights, one per row, each
  clipped onto [0, ``sample_weight_bound``]): a record's weight is part of the record, so it
  is part of the input the map covers (a record whose weight changes is a record replaced), never
  a constant of the measurement (``sample_weight`` as a fit option is refused: one data set's
  weights inside the measurement fixed n, so under add-remove it refused every neighbour of that
  data set and released on it, a membership test the map did not count); OpenDP does not
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
* function: ``learner.fit(X, y, epsilon, delta=delta, **fit_params)`` (with ``sample_weight=`` the
  triple's third entry when weighted); the
  released model is returned after its certificate is checked against the map
  (its epsilon, delta and relation), and refused otherwise.

An estimator (``DPLogisticRegression``, ``DPERMClassifier``, ``DPHuberSVM``,
``DPLinearRegression``, ``DPHuberRegressor``) holds its budget, its neighbour
relation and its options in its constructor, so the measurement takes them from
there: ``as_opendp_measurement(estimator)`` is at the estimator's (epsilon, delta)
(an ``epsilon`` or ``delta`` given too must be the estimator's own), its input
metric is the estimator's ``neighbours``, and its privacy map the same as a
learner's. When it is made, the measurement clones the estimator
(``sklearn.base.clone``: a later ``set_params`` on the user's estimator changes
nothing) and runs its ``check_params`` (with weights when ``weighted``): what
the estimator's fit refuses before it reads data is refused then, with the error
that fit gives; what it checks after (its learner's options, such as ``n_public``
under add-remove, and the mechanism's verdict) is refused when the measurement is
called, before the fit charges or draws anything. Each call fits a fresh clone of that copy on ``(X, y)`` (the
user's estimator is never fitted), checks the certificate of its ``model_``
against the map as above, and returns the fitted clone (``model_`` and
``certificate_`` hold the release; ``predict`` and ``score`` are at hand). Two
constructor settings are refused when the measurement is made: an ``accountant``
(each call would charge it besides OpenDP's compositor, which is the accountant
here: pass ``accountant=None``), and an int ``random_state`` unless
``allow_fixed_seed=True``: every call would fit with that seed and draw the same
noise, so two releases (two queries, or one query on two data sets) would share
their noise and their difference would cancel it. A measurement draws fresh
noise at each call (``random_state=None``); a seed is for reproducible
experiments. The same rule holds for a learner's ``random_state``, the fit
option passed to :func:`as_opendp_measurement` itself.
With ``allow_fixed_seed=True`` every release the measurement returns records its
noise as drawn from a caller's seed (its certificate's ``noise_source``,
:class:`~dpcvx.privacy.rng.NoiseSource`), which its text, its file and its report
state: a reproducible experiment, not a release.

What the measurement cannot run is refused when it is made, with an InputError: a
``fit`` that does not take those arguments (TDDL without
``Z`` or with ``neighbours``, which it does not offer; an option an estimator's ``fit`` does not
take), a learner without ``epsilon``, a pure-epsilon
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
then too. OpenDP's compositor counts a call only when it returns, so a fit that
failed after drawing its noise would be an event no map counts: a measurement's fit runs
under dpcvx's failure rule (:mod:`dpcvx.models.failure`, docs/theory.md section 7.1), and a
solve path without a proved iteration budget (a user's ``solver``, a conic-only problem) is
refused at each call before anything is drawn, the same on every data set (its verdict
reads public settings and, under add-remove, ``n_public``). A refusal reaches the caller
as OpenDP's ``OpenDPException`` (OpenDP wraps every error raised inside a user-defined
function), whose text ends with dpcvx's typed error as its family's class
(:data:`REFUSAL_FAMILIES`), its reason and traceback withheld (:data:`WITHHELD`): the reason
may name a count or a row of the data, a subclass or a frame the check that refused. A
failure that is no refusal (a ``SolverError``, an error not dpcvx's, an interrupt, which
inside OpenDP's callback aborted Python) reads :data:`FAILED` instead: it may come after the
draw, which OpenDP does not count. The privacy map covers the data sets the fit accepts (finite rows,
labels among the public classes, n above 1/delta): a data set outside them is refused every
time, which tells it apart from a neighbour inside them, as any library's input check does;
bring the data into that domain first, by a rule of public knowledge. The fit's NOT
PRIVATE warnings (``reads_private_data``: the count of clipped rows, the check of the
training rows) and warnings from outside dpcvx are not shown to the caller; dpcvx's public
warnings are.

OpenDP's user measurements need ``dp.enable_features("contrib",
"honest-but-curious")``: OpenDP has not vetted the map, which is dpcvx's
certificate. The measurement holds a copy of the learner made when it is made (``copy.deepcopy``; an estimator's
clone) and fits a fresh copy of it at each call: the caller's learner is never fitted, so what a fit measures on the
data for its owner alone (a learner's ``diagnostics_``: solver iterations, time, residual, NOT PRIVATE) never reaches
the party that holds the learner, which under OpenDP is the analyst, not the curator.

The release holds no record of its input. OpenDP's ``Measurement.__call__`` stores its input in an attribute
``__opendp_dict__`` of the output, when the output takes one: the private data set would ride along with the
release. Every dpcvx release and estimator refuses that attribute
(:class:`~dpcvx.release.input_record.HoldsNoInput`), and a fit that returns anything else is refused, not released.
"""

from __future__ import annotations

import copy
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    DPCVXError,
    DPCVXWarning,
    InputError,
    SolverError,
    a_value_of,
    errors_shown,
)
from .models.contract import refuse_held_accountant
from .models.failure import composite
from .models.multiclass import PrivateMulticlassERM
from .models.pinp import PINP
from .privacy.accountant import release_cost
from .privacy.neighbours import Neighbours, fit_relation, group_epsilon_delta
from .privacy.privacy_curve import refuse_conditional
from .release.input_record import HoldsNoInput
from .release.kernel_model import CURATOR
from .validation import check_delta, check_epsilon, check_flag, number_text

__all__ = ["as_opendp_measurement", "DATA_DOMAIN", "WEIGHTED_DATA_DOMAIN"]

DATA_DOMAIN = "dpcvx (X, y)"  # the identifier of the user domain of the fit's data
MEASUREMENT = "an OpenDP measurement"  # the composite procedure its fits run in (dpcvx.models.failure)
WEIGHTED_DATA_DOMAIN = "dpcvx (X, y, sample_weight)"  # the same with each record's weight (weighted=True)
#: What the checks made when a weighted measurement is made see as its weights: that weights come, not their values
_WEIGHTS_COME = np.ones(1)


def _opendp() -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as error:
        raise ImportError('as_opendp_measurement needs OpenDP: pip install "dpcvx[opendp]"') from error
    return dp


def as_opendp_measurement(learner: Any, epsilon: float | None = None, delta: float | None = None, *,
                          weighted: bool = False, allow_fixed_seed: bool = False, allow_estimates: bool = False,
                          **fit_params: Any) -> Any:
    """One fit of ``learner`` at (``epsilon``, ``delta``) as an OpenDP ``Measurement`` (module docstring).

    Parameters
    ----------
    learner : object
        A dpcvx learner (``PrivateERM``, ``PrivateMulticlassERM``,
        ``PrivateLinearRegression``, ``TDDL``, ...): anything whose
        ``fit(X, y, epsilon, delta=..., **fit_params)`` returns a release; or a
        dpcvx estimator (``DPLogisticRegression``, ``DPERMClassifier``,
        ``DPHuberSVM``, ``DPLinearRegression``, ``DPHuberRegressor``: an object
        with ``get_params`` and ``check_params``), whose budget, neighbour
        relation and options are its parameters.
    epsilon : float, optional
        The budget of one fit, > 0: required for a learner; for an estimator
        its own ``epsilon``, and if given it must equal it.
    delta : float, optional
        0 (a learner's default) for a pure-epsilon release (measure
        ``max_divergence``), else in (0, 1) (measure
        ``approximate(max_divergence)``); for an estimator its own ``delta``,
        and if given it must equal it.
    weighted : bool, default False
        True: the measurement is called on triples ``(X, y, sample_weight)``,
        each record's weight part of its data (the learner or estimator needs
        its public ``sample_weight_bound``; docs/theory.md, section 21), so a
        record whose weight differs is a record replaced, which the map counts.
        ``sample_weight`` as a fit option is refused.
    allow_fixed_seed : bool, default False
        A seed (an estimator's ``random_state``, or a learner's fit option
        ``random_state`` passed here in ``fit_params``) other than None is
        refused unless this is True: every call would fit with that seed and
        draw the same noise, so the releases of two calls (two queries, two
        data sets) would share it and their difference would cancel it. True
        is for reproducible experiments, never for a release.
    allow_estimates : bool, default False
        A learner that opts in to estimated constants (its ``allow_estimates``
        is True) is refused unless this is True too: its releases may be
        CONDITIONAL (the guarantee holds only if the estimates are right), and
        the measurement's privacy map cannot say so.
    **fit_params
        Passed to ``fit``: a learner's (``mechanism``, ``random_state``, ``Z``,
        ...; ``neighbours`` picks the input metric, "replace-one", the default,
        or "add-remove"); an estimator's ``fit`` takes none but the weights,
        which come with the data (``weighted``). ``accountant`` and
        ``sample_weight`` are refused: OpenDP's compositor is the accountant
        here, and the weights are data.

    Returns
    -------
    opendp.mod.Measurement
        Called on ``(X, y)`` (``(X, y, sample_weight)`` when weighted), it fits and returns the release: the model of a
        fresh copy of a learner (the learner passed in is never fitted); for an
        estimator, a fresh clone of it (``sklearn.base.clone``) fitted on
        ``(X, y)``, whose ``model_`` and ``certificate_`` hold the release (the
        estimator passed in is never fitted or changed). The release holds no
        record of ``(X, y)`` (module docstring).

    Raises
    ------
    InputError
        A learner whose ``fit`` does not take ``(X, y, epsilon, delta=delta,
        **fit_params)``, a learner without ``epsilon``, a bad budget, an
        ``accountant``, add-remove at delta = 0, an option the learner's
        ``check_options`` refuses (the error its fit would raise; module
        docstring), a ``random_state`` without ``allow_fixed_seed``; for an
        estimator, what its ``check_params`` refuses, an
        ``epsilon`` or ``delta`` that is not its own, an accountant in its
        constructor, an int ``random_state`` without ``allow_fixed_seed``, fit
        options its ``fit`` does not take; when called, data that is not a pair
        ``(X, y)`` (before the fit) and a release whose certificate is not the
        map's (a larger epsilon or delta, another relation).
    ImportError
        Without OpenDP.
    """
    if not callable(getattr(learner, "fit", None)):
        raise InputError(f"as_opendp_measurement takes a dpcvx learner with a fit method, got {type(learner).__name__}")
    if "accountant" in fit_params:
        raise InputError("as_opendp_measurement takes no accountant: OpenDP's compositor counts the budget")
    if "epsilon" in fit_params or "delta" in fit_params:
        raise InputError("pass epsilon and delta as the arguments of as_opendp_measurement, not as fit_params")
    if "sample_weight" in fit_params:
        raise InputError("as_opendp_measurement takes no sample_weight: the weights are a column of the private "
                         "data, one per record, and inside the measurement they would be a constant the privacy map "
                         "does not cover (they fix n: under add-remove every neighbour would be refused). Pass "
                         "weighted=True and call the measurement on triples (X, y, sample_weight); the learner needs "
                         "its public sample_weight_bound")
    weighted = check_flag("weighted", weighted)
    if weighted:
        fit_params = {**fit_params, "sample_weight": _WEIGHTS_COME}  # the checks made now: weights will come
    allow_fixed_seed = check_flag("allow_fixed_seed", allow_fixed_seed)
    allow_estimates = check_flag("allow_estimates", allow_estimates)
    if _estimates_allowed(learner) and not allow_estimates:
        raise InputError(f"{type(learner).__name__} has allow_estimates=True: a release may then be CONDITIONAL on "
                         "estimated constants, and an OpenDP measurement's privacy map cannot say so. Pass "
                         "allow_estimates=True to as_opendp_measurement to build it anyway, and keep the condition "
                         "with what you publish")
    fit: Callable[..., tuple[Any, Any]]
    if _is_estimator(learner):
        fit, epsilon, delta, relation = _estimator_fit(learner, epsilon, delta, allow_fixed_seed, fit_params)
    else:
        fit, epsilon, delta, relation = _learner_fit(learner, epsilon, delta, allow_fixed_seed, fit_params)
    dp = _opendp()
    dp.enable_features("contrib", "honest-but-curious")

    entries, shown = (3, WEIGHTED_DATA_DOMAIN) if weighted else (2, DATA_DOMAIN)

    def member(data: Any) -> bool:
        return isinstance(data, tuple) and len(data) == entries

    domain = dp.user_domain(shown, member=member)
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
            shape = f"a tuple of {len(data)}" if isinstance(data, tuple) else a_value_of(data)
            raise InputError(f"the measurement's input is a {'triple' if weighted else 'pair'} "
                             f"{shown.removeprefix('dpcvx ')}, the members of its domain {shown!r}; got {shape}. "
                             "Nothing was fitted")
        returned, model = _as_the_analyst_sees_it(fit, data)
        certificate = getattr(model, "certificate", None)
        if certificate is None:
            raise InputError(f"{type(learner).__name__}.fit returned no certificate: not a dpcvx release")
        if not isinstance(returned, HoldsNoInput):  # OpenDP would store the data set in it (module docstring)
            raise InputError(f"{type(learner).__name__}.fit returned a {type(returned).__name__}, which would hold "
                             "OpenDP's record of the measurement's input, the private data set: not released (a dpcvx "
                             "release or estimator holds none)")
        # the map's last word on a condition: whatever the learner's settings said before the fit (a one-vs-rest
        # learner's binary one, a numpy bool: _estimates_allowed), a CONDITIONAL release is not released unopted
        refuse_conditional(certificate.privacy_curve, "an OpenDP measurement's privacy map", allow_estimates)
        spent = release_cost(model)  # what the release cost in total, as an accountant charges it
        proved = certificate.privacy_curve.neighbours
        if spent[0] > epsilon or spent[1] > delta or proved is not relation:
            # each number as it reads back (number_text): :g wrote 3.0000000000000004 and 3 both as 3
            raise InputError(f"the release's certificate (epsilon {number_text(spent[0])}, delta "
                             f"{number_text(spent[1])}, {proved}) is not the measurement's ({number_text(epsilon)}, "
                             f"{number_text(delta)}, {relation}): not released")
        return returned

    return dp.m.make_user_measurement(domain, metric, measure, release, cost)


def _estimates_allowed(learner: Any) -> bool:
    """Whether ``learner``'s releases may be CONDITIONAL on an estimated constant: its ``allow_estimates`` flag as
    every learner reads it (:func:`~dpcvx.validation.check_flag`: a numpy bool too), a one-vs-rest learner's that of
    the binary learner its k fits are copies of. An early, public answer that refuses the measurement when it is
    made; the measurement refuses a conditional release in any case (attacker probe P6, session 69: ``np.True_`` and a
    one-vs-rest learner passed an ``is True`` test of the learner's own attribute)."""
    inner = learner.binary if isinstance(learner, PrivateMulticlassERM) else learner
    return check_flag("allow_estimates", getattr(inner, "allow_estimates", False))


#: What a refusal raised inside the measurement's fit says in place of its own text (:func:`_as_the_analyst_sees_it`)
WITHHELD = ("the fit refused the data set; its reason may read the private rows (a count, a row, a label), so it is "
            "withheld from the measurement's caller. Nothing was charged or drawn; the data's owner sees the reason by "
            "fitting the learner on the data directly, and a refusal of the settings alone (a solve path without a "
            "proved budget, a regularizer lam='auto' cannot take) shows on public rows of the same shape too")
#: What a failure of the measurement's fit that is no refusal (a SolverError, an error not dpcvx's, an interrupt)
#: says in place of its own text: it may come after the noise was drawn, where OpenDP counts nothing for a call that
#: raises (:func:`_as_the_analyst_sees_it`)
FAILED = ("the fit failed, and its reason is withheld from the measurement's caller. It may have drawn its noise, and "
          "OpenDP's compositor counts nothing for a call that raises: the event is outside the privacy map, so do not "
          "repeat the call on this data set. Inside a measurement a fit takes only solve paths with a proved "
          "iteration budget (docs/theory.md, section 7.1), so a failure other than an interrupt is a bug: please "
          "report it")


#: The classes a refusal inside the measurement's fit reaches its caller as: its family's, the first it belongs to. A
#: subclass names the check that refused (``NonFiniteError``: a NaN in X; ``RowError``: a row that does not parse),
#: which reads the private rows.
REFUSAL_FAMILIES: tuple[type[DPCVXError], ...] = (BudgetExceededError, AssumptionError, SolverError, InputError,
                                                   DPCVXError)


def _as_the_analyst_sees_it(fit: Callable[..., tuple[Any, Any]], data: tuple[Any, ...]) -> tuple[Any, Any]:
    """``fit(*data)`` as whoever calls the measurement may see it: under OpenDP that is the analyst, not the data's
    owner. The fit's warnings that read the private rows (``reads_private_data``: the NOT PRIVATE notes, such as the
    count of clipped rows or the check of the training rows) are dropped, and so are warnings from outside dpcvx
    (numpy's, scikit-learn's), whose text dpcvx does not control; dpcvx's public warnings (of public inputs and
    released values) are shown as the fit gave them. A dpcvx refusal keeps its family's class
    (:data:`REFUSAL_FAMILIES`: an ``InputError``, never the subclass that names its check) and loses its text
    (:data:`WITHHELD`): "y has 2 label(s), the first at row 17" told the caller a count and a position in the private
    data; so did its traceback, which OpenDP prints whole: its frames named the check that refused. Measured by a
    neighbour-pair probe: a ClippingWarning and a TrainingRowsWarning reached the caller on one neighbour of a pair
    and not on the other."""
    refused: type[DPCVXError] | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with composite(MEASUREMENT):  # the failure rule: a path that could fail after the draw is refused first
                result = fit(*data)
        except DPCVXError as refusal:
            refused = next(family for family in REFUSAL_FAMILIES if isinstance(refusal, family))
        except (Exception, KeyboardInterrupt):  # a foreign error (numpy's, a bug: its type and traceback name the code
            refused = DPCVXError  # that met the rows); an interrupt, which inside OpenDP's callback aborted Python
    if refused is not None:
        # a new error of the refusal's family, raised here: the refusal's own traceback (whose frames name the check
        # that refused: a NaN in X, a label outside the classes) and its context never reach OpenDP, which prints both
        withheld = refused.__new__(refused)
        withheld.args = (FAILED if refused in (SolverError, DPCVXError) else WITHHELD,)
        raise withheld
    with errors_shown():  # after the release: an "error" filter must not lose it (docs/theory.md, section 7.1)
        for shown in caught:
            if issubclass(shown.category, DPCVXWarning) and not shown.category.reads_private_data:
                warnings.warn_explicit(shown.message, shown.category, shown.filename, shown.lineno)
    return result


def _is_estimator(learner: Any) -> bool:
    """Whether ``learner`` is an estimator that holds its budget in its constructor (dpcvx's scikit-learn estimators:
    ``get_params`` and ``check_params``, the checks their fit runs before it reads data)."""
    return callable(getattr(learner, "get_params", None)) and callable(getattr(learner, "check_params", None))


def _refuse_fixed_seed(what: str, seed: Any, allow_fixed_seed: bool, fix: str) -> None:
    """The one rule of a seed in a measurement, a learner's fit option or an estimator's parameter: any seed but None
    is refused unless ``allow_fixed_seed`` (module docstring)."""
    if seed is not None and not allow_fixed_seed:
        raise InputError(f"{what}: every call of the measurement would fit with that seed and draw the same noise, so "
                         "the releases of two calls share it and their difference cancels it. A measurement draws "
                         f"fresh noise at each call: {fix}; for a reproducible experiment, never a release, pass "
                         "allow_fixed_seed=True")


def _learner_fit(learner: Any, epsilon: float | None, delta: float | None, allow_fixed_seed: bool,
                 fit_params: dict[str, Any]) -> tuple[Callable[..., tuple[Any, Any]], float, float, Neighbours]:
    """(the measurement's fit, epsilon, delta, the relation) of a learner that takes its budget in ``fit``, checked
    when the measurement is made (module docstring)."""
    if epsilon is None:
        raise InputError(f"as_opendp_measurement({type(learner).__name__}, epsilon, delta=0.0, **fit_params) needs "
                         "epsilon: a learner takes its budget in fit (only an estimator, such as "
                         "DPLogisticRegression, holds its own)")
    epsilon, delta = check_epsilon(epsilon), check_delta(0.0 if delta is None else delta)
    _check_fit_call(learner, epsilon, delta, fit_params)
    _check_options(learner, epsilon, delta, fit_params)  # a malformed seed is refused as the fit refuses it
    _refuse_fixed_seed(f"the fit option random_state={fit_params.get('random_state')!r}",
                       fit_params.get("random_state"), allow_fixed_seed, "leave random_state out")
    if isinstance(learner, PINP):
        raise InputError(f"{CURATOR}; that is not one release a measurement can return, so its fit is not "
                         "wrapped (OpenDP's compositor would count the budget, then get no certificate). Fit PINP "
                         "with a dpcvx PrivacyAccountant, or wrap TDDL or TDIL, which release one model")
    relation = fit_relation(fit_params.get("neighbours", Neighbours.REPLACE_ONE.value), delta)
    template = copy.deepcopy(learner)  # a later change to the caller's learner changes nothing

    def fit(X: Any, y: Any, *weights: Any) -> tuple[Any, Any]:  # a fresh copy: the caller's learner is never fitted
        model = copy.deepcopy(template).fit(X, y, epsilon, delta=delta, **_with(fit_params, weights))
        return model, model

    return fit, epsilon, delta, relation


def _estimator_fit(estimator: Any, epsilon: float | None, delta: float | None, allow_fixed_seed: bool,
                   fit_params: dict[str, Any]) -> tuple[Callable[..., tuple[Any, Any]], float, float, Neighbours]:
    """(the measurement's fit, epsilon, delta, the relation) of an estimator, whose budget, relation and options are
    its parameters, checked when the measurement is made: its own ``check_params`` (with weights when the
    measurement is weighted), then the budget given here against its own, its accountant and its seed. The measurement
    holds a clone made now (a later ``set_params`` on the user's estimator changes nothing) and fits a fresh clone of
    it at each call."""
    from sklearn.base import clone  # an estimator is a scikit-learn estimator: the extra is installed

    name = type(estimator).__name__
    template = clone(estimator)
    try:
        inspect.signature(template.fit).bind(None, None, **fit_params)
    except TypeError as error:
        raise _unbound_fit(f"{name}.fit(X, y, **fit_params)", fit_params, error,
                           f"An estimator's budget, neighbours and options are its parameters: set them in "
                           f"{name}(...) or with set_params") from None
    template.check_params(**_named(template.check_params, fit_params))
    params = template.get_params(deep=False)
    if "epsilon" not in params:
        raise InputError(f"as_opendp_measurement takes an estimator that holds its budget (epsilon, delta) in its "
                         f"constructor; {name} has no epsilon parameter")
    own = check_epsilon(params["epsilon"]), check_delta(params.get("delta", 0.0))
    for label, given, held in (("epsilon", epsilon, own[0]), ("delta", delta, own[1])):
        if given is not None and (check_epsilon(given) if label == "epsilon" else check_delta(given)) != held:
            raise InputError(f"as_opendp_measurement got {label}={given!r} for {name}, whose own {label} is "
                             f"{held!r}: an estimator's fit spends its own budget. Leave {label} out (the measurement "
                             f"is then at the estimator's), or set {name}({label}={given!r})")
    refuse_held_accountant(template, "each call of the measurement would charge it besides OpenDP's compositor, "
                           "which counts the budget here", "Pass the estimator with accountant=None "
                           "(set_params(accountant=None)); its fit's budget is charged to OpenDP's compositor")
    _refuse_fixed_seed(f"{name} has random_state={params.get('random_state')!r}", params.get("random_state"),
                       allow_fixed_seed, "pass the estimator with random_state=None (set_params(random_state=None))")
    relation = fit_relation(params.get("neighbours", Neighbours.REPLACE_ONE.value), own[1])

    def fit(X: Any, y: Any, *weights: Any) -> tuple[Any, Any]:
        fitted = clone(template).fit(X, y, **_with(fit_params, weights))
        return fitted, getattr(fitted, "model_", None)

    return fit, own[0], own[1], relation


def _with(fit_params: dict[str, Any], weights: tuple[Any, ...]) -> dict[str, Any]:
    """The fit options of one call: a weighted measurement's (whose ``sample_weight`` stood for the weights while it
    was checked) with the call's weights, the third entry of its data."""
    return {**fit_params, "sample_weight": weights[0]} if weights else fit_params


def _named(function: Any, fit_params: dict[str, Any]) -> dict[str, Any]:
    """The fit options that ``function`` (a learner's ``check_options``, an estimator's ``check_params``) names."""
    named = inspect.signature(function).parameters
    return {name: value for name, value in fit_params.items() if name in named}


def _check_options(learner: Any, epsilon: float, delta: float, fit_params: dict[str, Any]) -> None:
    """Run, when the measurement is made, the learner's own checks of the options that need no data
    (``check_options``: every dpcvx learner's, the module docstring), with the fit options it names: a budget,
    mechanism, split, relation, seed or setting the fit would refuse is refused here, an InputError, not inside
    OpenDP's compositor."""
    check = getattr(learner, "check_options", None)
    if callable(check):
        check(epsilon, delta=delta, **_named(check, fit_params))


def _check_fit_call(learner: Any, epsilon: float, delta: float, fit_params: dict[str, Any]) -> None:
    """Refuse, when the measurement is made, a learner whose ``fit`` cannot take the call the measurement
    makes, ``fit(X, y, epsilon, delta=delta, **fit_params)``: the call binds to ``fit``'s signature or the
    measurement is not made (it would fail only when called, inside OpenDP's compositor)."""
    try:
        inspect.signature(learner.fit).bind(None, None, epsilon, delta=delta, **fit_params)
    except TypeError as error:
        raise _unbound_fit(
            f"{type(learner).__name__}.fit(X, y, epsilon, delta=delta, **fit_params)", fit_params, error,
            "It takes a dpcvx learner (PrivateERM, PrivateMulticlassERM, PrivateLinearRegression, TDDL with Z, "
            "TDIL) and that learner's own fit options, or a dpcvx estimator (DPLogisticRegression, "
            "DPLinearRegression, ...), which holds its budget in its constructor") from None


def _unbound_fit(call: str, fit_params: dict[str, Any], error: TypeError, advice: str) -> InputError:
    """The refusal of a measurement whose ``call`` of fit does not bind to fit's signature (Python's ``error``): the
    keywords given, what the signature said (a missing argument is a keyword of as_opendp_measurement), then
    ``advice``."""
    given = f"fit_params {sorted(fit_params)}" if fit_params else "no fit_params"
    missing = ("; give it as a keyword: as_opendp_measurement(learner, epsilon, ..., name=value)"
               if "missing a required argument" in str(error) else "")
    return InputError(f"as_opendp_measurement calls {call} with {given}, which that fit does not take "
                      f"({error}{missing}). {advice}")
