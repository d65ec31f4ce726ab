"""NOT PRIVATE: whether noisy gradient descent's T steps could reach least squares on its mapped rows, told to the
data owner only.

Mechanism ``gradient-ranged`` (:mod:`dpcvx.privacy.gradient_descent`) takes T public steps of size 1 / Lambda, Lambda
the top eigenvalue of Z^T Z. Along an eigen-direction k of Z^T Z the error shrinks by about (1 - lambda_k / Lambda)
a step (faster with momentum), so where Z^T Z has one direction far above the others the directions below it barely
move in T steps, noise or none. The private ranges' map centres each column at its range's midpoint
(:func:`~dpcvx.data.standardiser.range_map`); a 0/1 flag with a share p of ones whose range spans both values then
has every row at +-h, mean h (2p - 1) and variance 4 h^2 p (1 - p): at p = 0.1 the mean is larger than the spread, d
such columns put a common direction of eigenvalue about n d mu^2 into Z^T Z, and the weight the flags share (with the
intercept) is its slow partner. Measured (the prober's 30 flags at 10 % ones, 10,000 rows, epsilon 1 and 2): top
eigenvalue 5,650 against 187 for the next and 13 for the least; the release's test R^2 0.55, the same T steps without
any noise 0.53, 400 steps without noise 0.92 and least squares on the same mapped rows 0.92 (ridge on the raw flags
0.92). The search's public level q falls with epsilon (0.19 at epsilon 0.5, its floor 0.1 from about 0.9): at
epsilon 0.5 each flag's range is the one value 0, the map puts the rows at 0 and the ones at the clip (mean 0.25 h,
variance 0.56 h^2) and the fit is good (0.85), so the fit fell as epsilon rose until T = 60 at n epsilon / d >= 1000.

:func:`descent_shortfall` measures it without noise from the statistics the descent reads (Z^T Z, Z^T y', y'^T y'
and sum y'): the T steps of w <- v - (Z^T Z v - Z^T y') / Lambda, v = w + beta (w - w_prev), from 0 (the clip of the
residuals left out: a linear model of the steps), then the level (the mean residual moved into the intercept), against
least squares on the same rows, as a share of the labels' variance. :func:`warn_descent_shortfall` warns when it is at
least :data:`SHORTFALL`, on descents with n epsilon / d >= :data:`REACH_AT` = 100 (public).

Measured first (benchmarks/descent_reach.py; threshold and advice fixed on its development family, 80 cells, before its
held-out family, 18 cells, was run), on 0/1 flag tables of 18 to 30 columns only: there DPHuberRegressor (the advice)
did better in every warned cell. A prober (session 56) then found it 4 times worse on a 400-level categorical (Zipf
shares) at n 40,000, epsilon 4 (R^2 0.12-0.14 against the default's 0.52-0.63), and the check silent below n epsilon / d
= 200 where it ran with momentum only. Objective perturbation's noise grows with d, and a one-hot level's column carries
little of the row's norm. benchmarks/descent_advice.py (candidates written before its development run of 63 cells:
one-hot blocks of 50 to 400 levels, a needle among 200 columns, the flag tables) chose the gate :data:`REACH_AT` = 100
(the lowest gate firing falsely no more often than the former 200: 2 firings where the default was within 0.15 of ridge,
both 0.14 below it; 22 firings against 14, 4 of the 5 weak fits nothing else warned told, against 2) and the advice rule
"DPHuberRegressor where d <= :data:`HUBER_WIDTH` = 50" (11 warned cells, better in 11, worse in none; Huber at every
width: 22 cells, worse by more than 0.02 in 8, down to -0.38). Above that width no setting measured was better in every
warned cell (mechanism="adassp" worse in all but a table of 100 flags, the public map worse by up to 4.7), so the
warning names none there and says so. Held-out, run once (60 cells): 12 firings, 11 honest; Huber advised in 6, better
in 5, worse in 1 (a 10-column table at epsilon 0.3, n epsilon / d = 135: R^2 0.43 to 0.22); named in none of the 6
one-hot cells, where it was worse in each (benchmarks/results/descent_advice_held.md). The release itself is unchanged
(the check draws nothing): the cause, the midpoint centring of mostly-0 flags and of a one-hot block's levels, is left
to a mechanism that releases the columns' means (its noise-free prototype on the prober's table reached least squares in
20 steps, condition number 3 against 440), which needs its own calibration and proof.

It reads the training rows, so what it says is a statistic of the private data: it never
enters the release or its certificate and never runs inside :func:`dpcvx.tune`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from ..advice import command_line_runs, setting
from ..exceptions import SlowDescentWarning, warn_shown

__all__ = ["FILLED_MEASURED", "HUBER_WIDTH", "REACH_AT", "SHORTFALL", "WIDE_HUBER_FIRED", "WIDE_HUBER_BETTER",
           "descent_shortfall",
           "huber_advised", "measured_from", "reach_checked", "warn_descent_shortfall"]

#: :func:`warn_descent_shortfall` warns when the noise-free steps leave at least this share of the labels' variance
#: that least squares on the same mapped rows explains (fixed on the development family of
#: benchmarks/descent_reach.py before its held-out family was generated)
SHORTFALL = 0.1
#: the check runs on descents with n epsilon / d >= REACH_AT (:func:`reach_checked`; public: n, epsilon, the width d)
REACH_AT = 100.0
#: the warning advises DPHuberRegressor only on rows of at most HUBER_WIDTH encoded columns (:func:`huber_advised`;
#: public: the width d)
HUBER_WIDTH = 50
#: Above :data:`HUBER_WIDTH`, DPHuberRegressor(column_statistics=False) at the same epsilon and bounds against the
#: default on the fits where the warning fired (benchmarks/descent_wide_huber.py, its rule written before its runs:
#: name it where n epsilon / d >= K only if it is worse by more than 0.02 of test R^2 in no warned fit): development
#: (descent_advice.py's blocks of 50 to 400 levels and its needle, epsilon 1 to 8) better in 11 of 11 by 0.059 to
#: 0.189, K = 100 chosen; held-out (its held-out generators at new seeds, epsilon 1.5 to 12) better in 6 of 8 and worse
#: by 0.021 in 1, so it failed and the warning states these counts (results/descent_wide_huber_{dev,held}.md). A
#: prober (session 62) had found it better in 5 of 5 fits at d 254, epsilon 8, under "No setting is known to do
#: better", which descent_advice.py had said without measuring it.
WIDE_HUBER_FIRED = 19
WIDE_HUBER_BETTER = 17
#: In each of those 19 fits the default had located the label's range, and its released half-width B' was 0.359 to
#: 0.696 of the declared label_bound's half-width B (measured in session 68 by rerunning them). An analyst's table
#: (session 68: length of stay declared 0..365, most stays under 10 days, a 200-level code, n 7,000) had B' / B 0.040
#: to 0.056 where this fired, and DPHuberRegressor(column_statistics=False), whose noise is scaled to the whole
#: declared bound, scored test R^2 -2.0 at epsilon 3 against the default's 0.14. So the counts are quoted as advice
#: only where the release's own B' / B (public: the released label range over the declared one) is at least this,
#: the least measured rounded down; elsewhere, or where the label was not located, the text says that they were
#: measured elsewhere and names no switch.
FILLED_MEASURED = 0.35
#: DPHuberRegressor at the same epsilon and bounds against the default, on rows of at most :data:`HUBER_WIDTH`
#: columns where the warning fired at the production gate: development 11 of 11 better, held-out 5 of 6 (worse by
#: 0.209 in the sixth; benchmarks/results/descent_advice_{dev,held}.md, rule A1 at gate 100)
NARROW_HUBER_FIRED = 17
NARROW_HUBER_BETTER = 16


def descent_shortfall(gram: np.ndarray, moment: np.ndarray, square: float, total: float, n: int, curvature: float,
                      steps: int, momentum: float, intercept_scale: float | None) -> float:
    """NOT PRIVATE: (SSE_T - SSE_ls) / SST on the mapped rows Z (their ``gram`` Z^T Z and ``moment`` Z^T y'; y' the
    centred clipped labels, ``square`` = y'^T y', ``total`` = sum y'): SSE_T the squared error of the ``steps``
    noise-free heavy-ball steps of size 1 / ``curvature`` (``momentum`` beta) from 0, then, with an intercept (its
    column the constant ``intercept_scale`` s, the last of Z), the level: the mean residual r moved into the intercept,
    which lowers SSE by n r^2; SSE_ls least squares' on the same rows; SST = y'^T y' - (sum y')^2 / n. The residual
    clip of the steps is left out (the steps of least squares). 0 when the labels do not vary."""
    spread = square - total**2 / n
    if not spread > 0:
        return 0.0
    weights = previous = np.zeros_like(moment)
    for _ in range(steps):
        point = weights + momentum * (weights - previous)
        previous, weights = weights, point - (gram @ point - moment) / curvature
    error = square - 2 * weights @ moment + weights @ gram @ weights
    if intercept_scale:  # Z^T 1 = Z^T (intercept column) / s
        residual = (total - (gram[:, -1] / intercept_scale) @ weights) / n
        error -= n * residual**2
    best = np.linalg.lstsq(gram, moment, rcond=None)[0]
    least = square - best @ moment
    return float(max(error - least, 0.0) / spread)


_GATE: contextvars.ContextVar[float] = contextvars.ContextVar("dpcvx_descent_reach_gate", default=REACH_AT)


@contextmanager
def measured_from(gate: float) -> Iterator[None]:
    """Within this block the check runs from n epsilon / d >= ``gate`` in place of :data:`REACH_AT`: an extension hook
    (docs/architecture.md) for a benchmark that measures the gate itself (benchmarks/descent_advice.py records the
    warning at every n epsilon / d, gate 0, and reads each candidate gate off the record). It changes what the data's
    owner is told, never a release."""
    token = _GATE.set(float(gate))
    try:
        yield
    finally:
        _GATE.reset(token)


def reach_checked(n: int, epsilon: float, width: int) -> bool:
    """Whether the check runs on a descent of n rows of ``width`` encoded columns at ``epsilon``: n epsilon / d >=
    :data:`REACH_AT` (public; :func:`measured_from` sets another gate for a benchmark)."""
    return n * epsilon >= _GATE.get() * width


def huber_advised(width: int) -> bool:
    """Whether the warning advises DPHuberRegressor on rows of ``width`` encoded columns: d <= :data:`HUBER_WIDTH`
    (public)."""
    return width <= HUBER_WIDTH


def _level_first() -> str:
    """The sentence that sends the reader to LevelErasedWarning first: the direction this warning finds (a level the
    columns share) is what that warning measures on the schema's rows, and its advice (the norm, the encoding, the
    declared ranges) was measured to recover such fits (an analyst's dates table, session 68: R^2 0.35 to 0.81 at
    epsilon 1), where the estimator switch below was worse in 6 of 6. The estimator does not see the schema's
    warnings, so the sentence is conditional."""
    return ("If a LevelErasedWarning was shown for the schema that coded these rows, follow its advice first (the "
            "norm, the encoding or the declared ranges) and refit before any of what follows: the schema's row map "
            "can make such a direction, and on a table where it did, that advice recovered the fit while the "
            "switch of estimator did worse. ")


def _wide_huber(filled: float | None, huber_public: str) -> str:
    """What the text says of DPHuberRegressor(column_statistics=False) on rows wider than :data:`HUBER_WIDTH`: its
    counts (benchmarks/descent_wide_huber.py) where the release's label fill B' / B (``filled``; None where the label
    was not located) is at least :data:`FILLED_MEASURED`, as in every fit they were measured on; elsewhere that they
    were measured on labels that filled more of their bound and that the switch is not named here."""
    counts = (f"did better in {WIDE_HUBER_BETTER} of the {WIDE_HUBER_FIRED} fits where this fired on one-hot blocks "
              "of 51 to 401 encoded columns (development 11 of 11; held-out 6 of 8, worse by more than 0.02 in 1: "
              "benchmarks/descent_wide_huber.py)")
    if filled is not None and filled >= FILLED_MEASURED:
        return (f"{huber_public}, at the same epsilon and bounds, {counts}; it failed that benchmark's held-out "
                "check, so it is named with its counts, not as a fix. ")
    here = ("the label's range was not located in this fit" if filled is None
            else f"here the released label range is {filled:.2f} of it")
    return (f"{huber_public} is not named here: at the same epsilon and bounds it {counts}, but on labels whose "
            f"located range was 0.36 to 0.70 of the declared label_bound in each of them, and {here}. "
            "Without column statistics its noise is scaled to the whole declared label_bound, so where the labels "
            "fill a small part of it its predictions "
            "can be far worse than predicting the labels' mean (test R^2 -2 against the default's 0.14 on a table "
            "whose labels, declared 0 to 365, were mostly under 10). ")


def warn_descent_shortfall(share: float, owner: str, width: int, filled: float | None) -> None:
    """Warn :class:`~dpcvx.exceptions.SlowDescentWarning` (NOT PRIVATE, after the release: never lost to an "error"
    filter) when ``share`` (:func:`descent_shortfall`) is at least :data:`SHORTFALL`. Its advice reads the public
    width d (:func:`huber_advised`): DPHuberRegressor, whose objective perturbation solves its problem to the end
    whatever the rows' conditioning, where it did better on the measured tables of few columns; else no estimator,
    since on one-hot blocks of hundreds of columns every other setting measured did worse
    (benchmarks/descent_advice.py), and DPHuberRegressor(column_statistics=False) with its counts only where the
    release's label fill ``filled`` (B' / B, public; None where the label was not located) is within what they were
    measured on (:func:`_wide_huber`). No estimator is called a fix: each failed a held-out check or a later table
    (session 68). Every text first sends the reader to a LevelErasedWarning of the same rows (:func:`_level_first`).
    No count or value of the rows."""
    if not share >= SHORTFALL:
        return
    cli = command_line_runs()
    if huber_advised(width):
        huber = ("--loss huber_regression" if cli
                 else "DPHuberRegressor(epsilon=..., label_bound=...) with the same epsilon and bounds")
        fix = (f"{huber}, which solves its problem to the end, did better in {NARROW_HUBER_BETTER} of the "
               f"{NARROW_HUBER_FIRED} fits where this fired on rows of at most {HUBER_WIDTH} columns (0/1 flags and "
               "benchmarks/regression_family.py's tables; worse by 0.21 in the other: benchmarks/descent_advice.py); "
               "it is named with its counts, not as a fix: on a table whose numeric columns the schema's map had "
               "erased it did worse in 6 of 6 fits.")
    else:
        adassp = setting("mechanism", repr("adassp"), "adassp")
        huber = "--loss huber_regression" if cli else "DPHuberRegressor()"
        huber_public = ("--loss huber_regression --no-column-statistics" if cli
                        else "DPHuberRegressor(column_statistics=False)")
        fix = (f"No setting is known to do better in every case on rows of {width} encoded columns: {huber} did "
               f"better on every measured table of at most {HUBER_WIDTH} columns and on one of 100 0/1 flags, but "
               f"worse on every one-hot block of 100 to 400 columns, and AdaSSP ({adassp}) worse on every such block "
               f"(benchmarks/descent_advice.py). {_wide_huber(filled, huber_public)}Fewer columns (a "
               "categorical's levels grouped by a public rule, a coarser classification known without the data) is "
               "the other lever; it was not measured.")
    warn_shown(
        f"{owner}'s noisy gradient descent could not reach least squares on its rows in its steps, even without "
        "noise: one direction of the mapped rows (a level the columns share, such as 0/1 flags that are mostly 0 or "
        "the common levels of a one-hot block) sets its step size, and the others barely move. The release fits "
        "worse than these rows allow, and a larger epsilon alone does not mend it. " + _level_first() + fix
        + " NOT PRIVATE: this check read the training rows; it is shown to you only and is not part of the release.",
        SlowDescentWarning)
