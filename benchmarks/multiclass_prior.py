"""One-vs-rest with a private count per class: ``class_prior="private", threshold="prior"`` against the default.

A ``DPLogisticRegression`` of k > 2 public classes fits each class against the rest at epsilon / k and, by default,
predicts the class of the largest score s_c. With ``class_prior="private"`` each class's fit draws its own private
count n~_c (``class_count_share`` of its epsilon / k, inside it) and centres its intercept at log(n~_c / (n - n~_c));
with ``threshold="prior"`` it predicts the class of the largest s_c - t_c, t_c that log-odds (docs/theory.md, section
15). The prober's table (one class at 80 %, nine at 2.2 %, n 20,000, d 8) scored balanced accuracy 0.18 by default
at epsilon 1 and 0.76 with the per-class fits by hand.

Families, written down before the first run (the held-out one before the development results were read):

* development ("dev"): k in {3, 5, 10} Gaussian centres N(0, 1.5^2 I) in d = 8, rows centre + N(0, I), encoded by a
  PublicSchema of columns declared (-6, 6); class shares "balanced" (1 / k) or one dominant class at 50 % or 85 %
  (the rest equal); n in {5,000, 20,000} training rows (and 50,000 for k = 5), 5,000 test rows; epsilon in
  {0.5, 1, 4}; seeds 0, 1, 2.
* held-out ("held"): multiclass_tuning's softmax tables, generated differently: rows N(0, I / d) in d = 10 scaled
  into the unit ball, labels drawn from a softmax with weights N(0, 36) and intercepts log(share); k in {4, 6, 8},
  shares balanced or geometric (proportional to 2^-i, i = 0 .. k - 1); n 8,000 (75 % train); epsilon {0.7, 2};
  seeds 101, 102, 103.

Contenders: **default** ``DPLogisticRegression(classes)``, **prior** the same with ``class_prior="private",
threshold="prior"``, and **sklearn** (non-private multinomial LogisticRegression, C = 1, on the same encoded rows).
Scores: balanced accuracy and accuracy on the test rows.

Rule for the default (written first): "prior" becomes the default for k > 2 iff, on the balanced tables of both
families, its mean balanced accuracy and its mean accuracy are each within 0.01 of the default's, and, on the
imbalanced ones, its mean accuracy is no more than 0.02 below the default's (a default must not trade the accuracy
``score`` reports for balanced accuracy on data whose imbalance is private).

    python -m benchmarks.multiclass_prior dev     # benchmarks/results/multiclass_prior_dev.md
    python -m benchmarks.multiclass_prior held    # benchmarks/results/multiclass_prior_held.md

Ordinal grades with thin tails, at any n x epsilon / k (session 71). An analyst probe (session 71, P2 finding 5: a
wine-quality grade 3..9 fitted as 7 classes, shares about 1/4/33/44/16/3/0.1 %, n x epsilon / k = 2,089) was told
of class_prior='private' with threshold='prior' "On tables of 8 to 16 classes ... of 2,000 or more, as here, its
balanced accuracy was the default's or more in 12 of 12 cells"; it gave accuracy 0.213 (constant prediction 0.375,
default 0.479) and balanced accuracy 0.226 against 0.223. The many-class evidence was quoted for 7 classes. A family
and a rule, written before the run:

* "ordinal": a latent score (a unit-norm weight over d = 10 standard normal columns under public bounds (-5, 5),
  plus N(0, 0.75^2) noise) rounded into k grades at cut points placed so that the middle grades carry most rows
  and the end grades thin tails: k = 5 with shares about 4/25/45/22/4 % ("peak5") and k = 7 with 1/4/33/44/16/3/0.1
  % as the probe's ("peak7"); n in {5,000, 20,000} training rows, 5,000 test rows; epsilon in {0.5, 1, 3}: n x
  epsilon / k from 357 to 12,000; data seed 7100 + k + n // 1000, fit seeds 0 and 1.

Rule (written first): the note ADVISES the prior at n x epsilon / k of PRIOR_ADVICE_FLOOR or more only at k where
every recorded cell of such k at that scale (the ordinal family, the moderate family, and the development and
held-out cells) HELPS (:func:`helps`, margin 0.02: balanced accuracy 0.02 above the default's, accuracy not below a
constant prediction's); the many-class evidence (8 to 16 classes) is quoted only at k of MANY_K or more. At fewer
classes the note states the recorded counts at the fit's side of the floor (better, worse, accuracy below a constant
prediction's) and advises neither.

    python -m benchmarks.multiclass_prior ordinal  # benchmarks/results/multiclass_prior_ordinal.md

Many classes, long tails: when to ADVISE the prior (session 67). The NOT PRIVATE TrainingRowsWarning of a default
one-vs-rest fit advised ``class_prior="private", threshold="prior"`` on the evidence above (at most 10 classes, one
dominant). An analyst probe (session 67, P3 finding 1: 12 classes, shares geometric from 30 % down to 0.5 %, n 15,000,
epsilon 0.3, n x epsilon / k = 375) followed it: accuracy 0.18 against the constant predictor's 0.32, balanced accuracy
0.13 against the default's 0.20. Two more families and a rule, written and committed before either ran:

* development ("many"): k in {8, 12, 16} Gaussian centres N(0, I) in d = 8, rows centre + N(0, I) clipped to
  [-5, 5], encoded by a PublicSchema of columns declared (-5, 5); shares "geometric" (np.geomspace(0.30, 0.005, k),
  normalised) or "tail" (one class at 50 %, the other k - 1 geometric from 0.10 down to 0.005, scaled to the other
  50 %); n in {4,000, 20,000} training rows, 5,000 test rows; epsilon in {0.3, 1, 3}: n x epsilon / k from 75 to
  7,500; seeds 0 and 1 (two seeds, to finish in minutes).
* held-out ("many_held"), generated differently: rows N(0, I / d) in d = 10 scaled into the unit ball (no schema),
  labels drawn from a softmax with weights N(0, 2.5^2) and intercepts log(share); k in {10, 14}; shares "zipf"
  (proportional to (i + 1)^-1.6) or "ratio" (proportional to 0.7^i); n 6,000 or 30,000 (75 % train); epsilon in
  {0.5, 2}: n x epsilon / k from 160 to 4,500; seeds 201 and 202.

In each cell (the mean over its seeds) the prior HELPS where its balanced accuracy is at least 0.02 above the
default's and its accuracy is not below the constant predictor's (the test rows' share of their most common class).
Scale s = n x epsilon / k (n training rows, epsilon the fit's total: public, no class count enters it).

Rule (written first): the floor F is the smallest candidate in {100, 250, 500, 1,000, 2,000, 4,000, 8,000} such that
the prior HELPS in every development cell with s >= F, and at least one such cell exists; none: F is infinite (the
prior is advised at no scale). F is then frozen and the held-out family run: it passes if in every held-out cell with
s >= F the prior's balanced accuracy is not below the default's and its accuracy not below the constant predictor's.
If it fails, F is infinite. The warning advises the prior only where s >= F
(dpcvx.models.training_rows.PRIOR_ADVICE_FLOOR); below it, it says that the prior did worse there, with the counts.

    python -m benchmarks.multiclass_prior many        # benchmarks/results/multiclass_prior_many.md
    python -m benchmarks.multiclass_prior many_held   # benchmarks/results/multiclass_prior_many_held.md

Fewer classes, moderate skew: where NOT to advise against the prior (session 69). Below F the note called the prior
"not advised" on every one-vs-rest fit, from the many-class families alone (8 to 16 classes, shares down to 0.5 %).
An analyst probe (session 69, P8 finding 1: an ordinal grade of 4 classes at 40/30/20/10 %, n 6,400, epsilon 0.5 to
2) found the prior better in balanced accuracy in 18 of 18 fits. A third family, written before it ran:

* moderate ("moderate"): an ordinal grade of k = 4 classes cut from a latent score at shares 40/30/20/10 % or
  55/20/15/10 %; the latent is a N(0, I) row of d = 8 columns times a fixed weight vector plus N(0, 0.5^2) noise,
  the columns clipped to [-4, 4] and encoded by a PublicSchema of columns declared (-4, 4); n in {2,000, 6,400}
  training rows, 5,000 test rows; epsilon in {0.5, 1, 2}: n x epsilon / k from 250 to 3,200; seeds 0 and 1 (quick).

Reported: in the cells with s < F, those where the prior's balanced accuracy was above the default's by more than
0.02 and those where it was below by more than 0.02; and the same counts over the recorded cells of fewer than 8
classes with s < F of the development and held-out families (read from results/multiclass_prior_{dev,held}.md).
Rule (written first): the note calls the prior "not advised" below F only at k >= 8, the many-class families'
smallest k, if among the cells of fewer than 8 classes below F (moderate, dev and held together) the prior did
better by more than 0.02 in at least one; it then states both counts and that no public setting is known to do
better there (dpcvx.models.training_rows.prior_regime).

    python -m benchmarks.multiclass_prior moderate    # benchmarks/results/multiclass_prior_moderate.md

Real tables (session 71). An analyst probe (session 71, P8 finding 3) fitted UCI Adult's occupation as 14 classes
with class_prior='private', threshold='prior' and found it worse than the default in accuracy and in balanced
accuracy at epsilon 0.5, 1 and 3, including epsilon 3 where n x epsilon / k is about 6,500, above the floor where
the note advised it "as here": the advice's evidence was synthetic families only. A family and a rule, written
before the run:

* "real": UCI Adult (the files in DPCVX_DATA, dpcvx.data.read_records), two public multiclass targets:
  ``occupation`` (the 14 classes of adult.names; records whose occupation is missing, "?", dropped) and
  ``education`` (its 16 levels; the column education-num, the same levels as a number, dropped from the
  features). Features: dpcvx's public Adult schema (dpcvx.data.uci_domains.adult_schema, constant_feature=False)
  without the target, education-num (education only), fnlwgt and income. Split by the files (a public rule):
  adult.data trains, adult.test scores. Epsilon in {0.5, 1, 3}: n x epsilon / k from about 1,000 to 6,600; fit
  seeds 0, 1 and 2. Recorded per cell: balanced accuracy, accuracy and macro-F1 of the default and the prior, and
  the constant prediction's accuracy (the test rows' most common class).

Rule (written first): the many-class advice stands at a scale only if the prior HELPS (:func:`helps`, margin 0.02)
in every recorded cell of MANY_K classes or more at that side of the floor, the real ones included. If a real cell
at or above the floor does not, the note advises the prior at no k (dpcvx.models.training_rows.PRIOR_REAL decides
it: :func:`dpcvx.models.training_rows.prior_advised`) and says instead that it was measured both ways, with the
synthetic and the real counts; below the floor the "not advised" note quotes the real counts beside the synthetic.

    python -m benchmarks.multiclass_prior real      # benchmarks/results/multiclass_prior_real.md
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterable

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, f1_score

import dpcvx
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown

TEST_ROWS = 5000


def _shares(k: int, kind: str) -> np.ndarray:
    if kind == "balanced":
        return np.full(k, 1 / k)
    if kind == "geometric":
        raw = 2.0 ** -np.arange(k)
        return raw / raw.sum()
    top = float(kind)
    return np.array([top] + [(1 - top) / (k - 1)] * (k - 1))


def dev_tables():
    """(name, imbalanced, X train, y train, X test, y test, epsilons, seeds) of the development family."""
    d = 8
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{j}", -6, 6) for j in range(d)), norm=1.0)
    for k in (3, 5, 10):
        for kind in ("balanced", "0.5", "0.85"):
            for n in (5000, 20000) + ((50000,) if k == 5 else ()):
                rng = np.random.default_rng(1000 * k + n // 1000)
                centres = rng.normal(size=(k, d)) * 1.5
                labels = rng.choice(k, size=n + TEST_ROWS, p=_shares(k, kind))
                X = centres[labels] + rng.normal(size=(n + TEST_ROWS, d))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    Z = schema.transform({f"x{j}": X[:, j] for j in range(d)})
                yield (f"k={k} {kind} n={n}", kind != "balanced", Z[:n], labels[:n], Z[n:], labels[n:],
                       (0.5, 1, 4), (0, 1, 2))


def held_tables():
    """The held-out family (multiclass_tuning's softmax tables)."""
    d, n = 10, 8000
    for k in (4, 6, 8):
        for kind in ("balanced", "geometric"):
            rng = np.random.default_rng(77 + k)
            X = rng.normal(size=(n, d)) / np.sqrt(d)
            X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
            logits = X @ rng.normal(0, 6, (d, k)) + np.log(_shares(k, kind))
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            y = np.array([rng.choice(k, p=row) for row in p])
            cut = int(0.75 * n)
            yield (f"k={k} {kind}", kind != "balanced", X[:cut], y[:cut], X[cut:], y[cut:], (0.7, 2), (101, 102, 103))


#: the floors the rule of the many-class families chooses among (module docstring)
FLOORS = (100, 250, 500, 1000, 2000, 4000, 8000)


def _long_shares(k: int, kind: str) -> np.ndarray:
    """The many-class families' class shares (module docstring)."""
    if kind == "geometric":
        raw = np.geomspace(0.30, 0.005, k)
        return raw / raw.sum()
    if kind == "tail":
        rest = np.geomspace(0.10, 0.005, k - 1)
        return np.concatenate([[0.5], 0.5 * rest / rest.sum()])
    if kind == "zipf":
        raw = (np.arange(k) + 1.0) ** -1.6
        return raw / raw.sum()
    raw = 0.7 ** np.arange(k)  # "ratio"
    return raw / raw.sum()


def many_tables():
    """The many-class development family (module docstring)."""
    d = 8
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{j}", -5, 5) for j in range(d)), norm=1.0)
    for k in (8, 12, 16):
        for kind in ("geometric", "tail"):
            for n in (4000, 20000):
                rng = np.random.default_rng(3000 + 100 * k + n // 1000 + (kind == "tail"))
                centres = rng.normal(size=(k, d))
                labels = rng.choice(k, size=n + TEST_ROWS, p=_long_shares(k, kind))
                X = np.clip(centres[labels] + rng.normal(size=(n + TEST_ROWS, d)), -5, 5)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    Z = schema.transform({f"x{j}": X[:, j] for j in range(d)})
                yield (f"k={k} {kind} n={n}", True, Z[:n], labels[:n], Z[n:], labels[n:], (0.3, 1, 3), (0, 1))


def many_held_tables():
    """The many-class held-out family (module docstring)."""
    d = 10
    for k in (10, 14):
        for kind in ("zipf", "ratio"):
            for n in (6000, 30000):
                rng = np.random.default_rng(500 + k + n // 1000 + (kind == "ratio"))
                X = rng.normal(size=(n, d)) / np.sqrt(d)
                X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
                logits = X @ rng.normal(0, 2.5, (d, k)) + np.log(_long_shares(k, kind))
                p = np.exp(logits - logits.max(axis=1, keepdims=True))
                p /= p.sum(axis=1, keepdims=True)
                y = (p.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
                cut = int(0.75 * n)
                yield (f"k={k} {kind} n={cut}", True, X[:cut], y[:cut], X[cut:], y[cut:], (0.5, 2), (201, 202))


#: the moderate family's class shares (module docstring)
MODERATE_SHARES = ((0.4, 0.3, 0.2, 0.1), (0.55, 0.2, 0.15, 0.1))
#: the many-class families' smallest k: below it the note does not call the prior "not advised"
#: (dpcvx.models.training_rows.MANY_CLASSES)
MANY_K = 8


def moderate_tables():
    """The moderate family (module docstring): an ordinal grade cut from a latent score at public shares."""
    d = 8
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{j}", -4, 4) for j in range(d)), norm=1.0)
    for shares in MODERATE_SHARES:
        for n in (2000, 6400):
            rng = np.random.default_rng(6900 + n // 100 + int(100 * shares[0]))
            weights = rng.normal(size=d)
            X = np.clip(rng.normal(size=(n + TEST_ROWS, d)), -4, 4)
            latent = X @ weights / np.linalg.norm(weights) + 0.5 * rng.normal(size=n + TEST_ROWS)
            cuts = np.quantile(latent[:n], np.cumsum(shares)[:-1])
            labels = np.searchsorted(cuts, latent)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                Z = schema.transform({f"x{j}": X[:, j] for j in range(d)})
            name = "/".join(f"{round(100 * s)}" for s in shares)
            yield f"k=4 {name} n={n}", Z[:n], labels[:n], Z[n:], labels[n:], (0.5, 1, 2), (0, 1)


#: the ordinal family's grades: (name, cut points of the latent score) (module docstring)
ORDINAL_GRADES = (("peak5", (-2.48, -0.78, 0.91, 2.48)),
                  ("peak7", (-3.29, -2.33, -0.43, 1.29, 2.91, 4.37)))


def ordinal_tables():
    """The ordinal family (module docstring): a latent score rounded into grades with thin end grades."""
    d = 10
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{j}", -5, 5) for j in range(d)), norm=1.0)
    for name, cuts in ORDINAL_GRADES:
        k = len(cuts) + 1
        for n in (5000, 20000):
            rng = np.random.default_rng(7100 + k + n // 1000)
            weights = rng.normal(size=d)
            X = np.clip(rng.normal(size=(n + TEST_ROWS, d)), -5, 5)
            latent = 1.2 * X @ weights / np.linalg.norm(weights) + 0.75 * rng.normal(size=n + TEST_ROWS)
            labels = np.searchsorted(np.asarray(cuts), latent)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                Z = schema.transform({f"x{j}": X[:, j] for j in range(d)})
            yield f"k={k} {name} n={n}", Z[:n], labels[:n], Z[n:], labels[n:], (0.5, 1, 3), (0, 1)


def recorded_few_class_cells(floor_value: float, above: bool = False) -> list[tuple[str, float, float]]:
    """(table, s, prior minus default in balanced accuracy) of the recorded development and held-out cells
    (results/multiclass_prior_{dev,held}.md) of fewer than :data:`MANY_K` classes with s = n x epsilon / k below
    ``floor_value`` (``above``: at it or more; the held-out family's n: 6,000 training rows)."""
    out = []
    for which in ("dev", "held"):
        text = (RESULTS_DIR / f"multiclass_prior_{which}.md").read_text()
        for row in re.finditer(r"^\| (k=(\d+) [^|]*?) \| ([\d.]+) \| [^|]+ \| ([\d.]+) / [\d.]+ \| "
                               r"([\d.]+) / [\d.]+ \|$", text, re.M):
            name, k, eps = row.group(1), int(row.group(2)), float(row.group(3))
            n = int(re.search(r"n=(\d+)", name).group(1)) if "n=" in name else 6000
            scale = n * eps / k
            if k < MANY_K and (scale >= floor_value) == above:
                out.append((f"{which}: {name}, epsilon {eps}", scale, float(row.group(5)) - float(row.group(4))))
    return out


def _moderate() -> None:
    """Run the moderate family and write its results file with the counts the module docstring names."""
    from dpcvx.models.training_rows import PRIOR_ADVICE_FLOOR

    record = RunRecord("benchmarks.multiclass_prior", sys.argv[1:] or ["moderate"])
    lines = ["| table | epsilon | n x eps / k | constant acc. | default bal. acc. / acc. | prior bal. acc. / acc. | "
             "prior minus default (bal. acc.) |", "|---|---|---|---|---|---|---|"]
    cells = []
    for name, X, y, Xt, yt, epsilons, seeds in moderate_tables():
        k = 4
        constant = float(np.max(np.bincount(yt, minlength=k)) / yt.size)
        for eps in epsilons:
            a, b = _mean_scores(X, y, Xt, yt, tuple(range(k)), eps, seeds)
            scale = X.shape[0] * eps / k
            cells.append((scale, b[0] - a[0]))
            lines.append(f"| {name} | {eps} | {scale:,.0f} | {constant:.3f} | {a[0]:.3f} / {a[1]:.3f} | "
                         f"{b[0]:.3f} / {b[1]:.3f} | {b[0] - a[0]:+.3f} |")
            print(lines[-1], flush=True)
    below = [gain for scale, gain in cells if scale < PRIOR_ADVICE_FLOOR]
    above = [gain for scale, gain in cells if scale >= PRIOR_ADVICE_FLOOR]
    recorded = recorded_few_class_cells(PRIOR_ADVICE_FLOOR)
    old = [gain for _, _, gain in recorded]
    every = below + old
    verdict = [f"- moderate cells with s < {PRIOR_ADVICE_FLOOR:,}: {len(below)}; prior better by more than 0.02 in "
               f"{sum(g > 0.02 for g in below)}, worse by more than 0.02 in {sum(g < -0.02 for g in below)} "
               f"(change {min(below):+.3f} to {max(below):+.3f})",
               f"- moderate cells with s >= {PRIOR_ADVICE_FLOOR:,}: {len(above)}; prior better by more than 0.02 in "
               f"{sum(g > 0.02 for g in above)}, worse by more than 0.02 in {sum(g < -0.02 for g in above)}",
               f"- recorded development and held-out cells of fewer than {MANY_K} classes with s < "
               f"{PRIOR_ADVICE_FLOOR:,}: {len(old)}; prior better by more than 0.02 in {sum(g > 0.02 for g in old)}, "
               f"worse by more than 0.02 in {sum(g < -0.02 for g in old)} (change {min(old):+.3f} to "
               f"{max(old):+.3f})",
               f"- all cells of fewer than {MANY_K} classes with s < {PRIOR_ADVICE_FLOOR:,}: {len(every)}; prior "
               f"better by more than 0.02 in {sum(g > 0.02 for g in every)}, worse by more than 0.02 in "
               f"{sum(g < -0.02 for g in every)}",
               "- rule: " + ("the note does not call the prior 'not advised' below the floor at fewer than "
                             f"{MANY_K} classes" if any(g > 0.02 for g in every) else
                             "the note calls the prior 'not advised' below the floor at every k")]
    text = "\n".join(["# One-vs-rest with class_prior='private', threshold='prior': the moderate family", "",
                      f"Written by `{record.command}` (the family and the rule: the script's docstring, committed "
                      "before the run). Each cell: the mean over its seeds (two). s = n x epsilon / k, n the "
                      "training rows.", "", *verdict, "", *lines, "",
                      "Recorded cells of fewer than 8 classes below the floor (prior minus default, bal. acc.):", "",
                      *[f"- {name} (s {scale:,.0f}): {gain:+.3f}" for name, scale, gain in recorded]])
    print(write_markdown(RESULTS_DIR / "multiclass_prior_moderate.md", text, record))


def _ordinal() -> None:
    """Run the ordinal family and write its results file with the rule's verdict (module docstring)."""
    from dpcvx.models.training_rows import PRIOR_ADVICE_FLOOR

    record = RunRecord("benchmarks.multiclass_prior", sys.argv[1:] or ["ordinal"])
    lines = ["| table | epsilon | n x eps / k | constant acc. | min share | default bal. acc. / acc. | "
             "prior bal. acc. / acc. | prior minus default (bal. acc.) | prior helps |",
             "|---|---|---|---|---|---|---|---|---|"]
    cells = []
    for name, X, y, Xt, yt, epsilons, seeds in ordinal_tables():
        k = int(max(y.max(), yt.max())) + 1
        constant = float(np.max(np.bincount(yt, minlength=k)) / yt.size)
        least = float(np.min(np.bincount(y, minlength=k)) / y.size)
        for eps in epsilons:
            a, b = _mean_scores(X, y, Xt, yt, tuple(range(k)), eps, seeds)
            scale = X.shape[0] * eps / k
            good = helps(b[0], a[0], b[1], constant)
            cells.append((scale, b[0] - a[0], b[1] < constant, good))
            lines.append(f"| {name} | {eps} | {scale:,.0f} | {constant:.3f} | {least:.4f} | {a[0]:.3f} / {a[1]:.3f} | "
                         f"{b[0]:.3f} / {b[1]:.3f} | {b[0] - a[0]:+.3f} | {'yes' if good else 'no'} |")
            print(lines[-1], flush=True)
    # (s, constant acc., default bal. acc., default acc., prior bal. acc., prior acc.)
    moderate = [(float(m.group(1).replace(",", "")), float(m.group(2)), float(m.group(3)), float(m.group(4)),
                 float(m.group(5)), float(m.group(6))) for m in re.finditer(
        r"^\| k=4 [^|]+ \| [\d.]+ \| ([\d,]+) \| ([\d.]+) \| ([\d.]+) / ([\d.]+) \| ([\d.]+) / ([\d.]+) \|",
        (RESULTS_DIR / "multiclass_prior_moderate.md").read_text(), re.M)]
    verdict = []
    for above in (False, True):
        side = f"s >= {PRIOR_ADVICE_FLOOR:,}" if above else f"s < {PRIOR_ADVICE_FLOOR:,}"
        mine = [c for c in cells if (c[0] >= PRIOR_ADVICE_FLOOR) == above]
        mod = [c for c in moderate if (c[0] >= PRIOR_ADVICE_FLOOR) == above]
        old = [gain for _, _, gain in recorded_few_class_cells(PRIOR_ADVICE_FLOOR, above)]
        gains = [c[1] for c in mine] + [c[4] - c[2] for c in mod] + old
        under = sum(c[2] for c in mine) + sum(c[5] < c[1] for c in mod)
        every = all(c[3] for c in mine) and all(helps(c[4], c[2], c[5], c[1]) for c in mod) and all(
            g >= 0.02 for g in old)
        verdict.append(f"- cells of fewer than {MANY_K} classes with {side}: ordinal {len(mine)}, moderate {len(mod)}, "
                       f"development and held-out {len(old)}; all {len(gains)}: prior better in balanced accuracy by "
                       f"more than 0.02 in {sum(g > 0.02 for g in gains)}, worse by more than 0.02 in "
                       f"{sum(g < -0.02 for g in gains)}; its accuracy below a constant prediction's in {under} of the "
                       f"{len(mine) + len(mod)} ordinal and moderate cells (the others record no constant); "
                       f"prior HELPS in every cell: {'yes' if every else 'no'}")
        verdict.append(f"  - ordinal alone: {len(mine)} cells, better by more than 0.02 in "
                       f"{sum(c[1] > 0.02 for c in mine)}, worse by more than 0.02 in "
                       f"{sum(c[1] < -0.02 for c in mine)}, "
                       f"accuracy below a constant prediction's in {sum(c[2] for c in mine)}")
    text = "\n".join(["# One-vs-rest with class_prior='private', threshold='prior': the ordinal family", "",
                      f"Written by `{record.command}` (the family and the rule: the script's docstring, written "
                      "before the run). Each cell: the mean over its seeds (two). s = n x epsilon / k, n the "
                      "training rows. Moderate cells: results/multiclass_prior_moderate.md (default bal. acc. / acc., "
                      "prior bal. acc. / acc., constant acc.).", "", *verdict, "", *lines])
    print(write_markdown(RESULTS_DIR / "multiclass_prior_ordinal.md", text, record))


def helps(prior_balanced: float, default_balanced: float, prior_accuracy: float, constant: float,
          margin: float = 0.02) -> bool:
    """Whether the prior HELPS in a cell (module docstring): its balanced accuracy at least ``margin`` above the
    default's and its accuracy not below the constant predictor's (``constant``); the held-out check's margin is 0."""
    return prior_balanced >= default_balanced + margin and prior_accuracy >= constant


def floor(cells: list[tuple[float, float, float, float, float, float]]) -> float:
    """The rule's floor F on the development cells (s, default bal. acc., default acc., prior bal. acc., prior acc.,
    constant acc.): the smallest of :data:`FLOORS` above which the prior HELPS in every cell, with one cell at
    least; infinite if none."""
    for candidate in FLOORS:
        above = [c for c in cells if c[0] >= candidate]
        if above and all(helps(c[3], c[1], c[4], c[5]) for c in above):
            return float(candidate)
    return float("inf")


def _many(which: str) -> None:
    """Run a many-class family and write its results file, with the rule's floor (development) or its check
    (held-out, at the floor frozen in results/multiclass_prior_many.md: ``--floor F``)."""
    record = RunRecord("benchmarks.multiclass_prior", sys.argv[1:] or [which])
    tables = many_tables() if which == "many" else many_held_tables()
    lines = ["| table | epsilon | n x eps / k | constant acc. | min share | default bal. acc. / acc. | "
             "prior bal. acc. / acc. | prior minus default (bal. acc.) | prior helps |",
             "|---|---|---|---|---|---|---|---|---|"]
    cells = []
    for name, _, X, y, Xt, yt, epsilons, seeds in tables:
        k = int(max(y.max(), yt.max())) + 1
        classes = tuple(range(k))
        constant = float(np.max(np.bincount(yt, minlength=k)) / yt.size)
        least = float(np.min(np.bincount(y, minlength=k)) / y.size)
        for eps in epsilons:
            a, b = _mean_scores(X, y, Xt, yt, classes, eps, seeds)
            scale = X.shape[0] * eps / k
            cells.append((scale, a[0], a[1], b[0], b[1], constant))
            good = helps(b[0], a[0], b[1], constant, 0.02 if which == "many" else 0.0)
            lines.append(f"| {name} | {eps} | {scale:,.0f} | {constant:.3f} | {least:.4f} | {a[0]:.3f} / {a[1]:.3f} | "
                         f"{b[0]:.3f} / {b[1]:.3f} | {b[0] - a[0]:+.3f} | {'yes' if good else 'no'} |")
            print(lines[-1], flush=True)
    if which == "many":
        chosen = floor(cells)
        verdict = [f"- Floor chosen by the rule: F = {chosen:,.0f}" if np.isfinite(chosen)
                   else "- Floor chosen by the rule: none (F infinite: the prior is advised at no scale)"]
        for candidate in FLOORS:
            above = [c for c in cells if c[0] >= candidate]
            below = [c for c in cells if c[0] < candidate]
            verdict.append(f"- F = {candidate:,}: {sum(helps(c[3], c[1], c[4], c[5]) for c in above)} of {len(above)} "
                           f"cells at s >= F helped; below it, prior worse in balanced accuracy (by more than 0.02) "
                           f"in {sum(c[3] < c[1] - 0.02 for c in below)} of {len(below)}, accuracy below the "
                           f"constant's in {sum(c[4] < c[5] for c in below)}")
    else:
        chosen = float(sys.argv[sys.argv.index("--floor") + 1]) if "--floor" in sys.argv else float("inf")
        above = [c for c in cells if c[0] >= chosen]
        below = [c for c in cells if c[0] < chosen]
        passed = all(helps(c[3], c[1], c[4], c[5], 0.0) for c in above)
        verdict = [f"- Frozen floor F = {chosen:,.0f}: {len(above)} cells at s >= F, check "
                   f"{'PASSED' if passed else 'FAILED'} (prior not below the default in balanced accuracy and not "
                   "below the constant in accuracy in every one)",
                   f"- below F ({len(below)} cells): prior worse in balanced accuracy (by more than 0.02) in "
                   f"{sum(c[3] < c[1] - 0.02 for c in below)}, accuracy below the constant's in "
                   f"{sum(c[4] < c[5] for c in below)}"]
    family = "many-class development" if which == "many" else "many-class held-out"
    text = "\n".join([f"# One-vs-rest with class_prior='private', threshold='prior': the {family} family", "",
                      f"Written by `{record.command}` (the families and the rule: the script's docstring, committed "
                      "before the runs). Each cell: the mean over its seeds (two). s = n x epsilon / k, n the "
                      "training rows.", "", *verdict, "", *lines])
    print(write_markdown(RESULTS_DIR / f"multiclass_prior_{which}.md", text, record))


def _scores(y, p, macro_f1: bool = False) -> tuple[float, ...]:
    """(balanced accuracy, accuracy), and macro-F1 (the real family) with ``macro_f1``."""
    head = (balanced_accuracy_score(y, p), float(np.mean(y == p)))
    return head + ((float(f1_score(y, p, average="macro", zero_division=0)),) if macro_f1 else ())


def _mean_scores(X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray, classes: tuple,
                 eps: float, seeds: Iterable[int], macro_f1: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The mean test (balanced accuracy, accuracy, and macro-F1 with ``macro_f1``) over ``seeds`` of the default and
    of the prior setting, each seed fitting both on the same noise seed."""
    default, prior = [], []
    for seed in seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = dpcvx.DPLogisticRegression(classes=classes, epsilon=eps, random_state=seed).fit(X, y)
            cut = dpcvx.DPLogisticRegression(classes=classes, epsilon=eps, random_state=seed,
                                             class_prior="private", threshold="prior").fit(X, y)
        default.append(_scores(yt, plain.predict(Xt), macro_f1))
        prior.append(_scores(yt, cut.predict(Xt), macro_f1))
    return np.mean(default, axis=0), np.mean(prior, axis=0)


#: The real family's targets (module docstring): (target, columns dropped from the features beside it)
REAL_TARGETS = (("occupation", ("fnlwgt", "income")), ("education", ("education-num", "fnlwgt", "income")))
REAL_EPSILONS = (0.5, 1, 3)
REAL_SEEDS = (0, 1, 2)


def real_tables():
    """The real family (module docstring): (name, X train, y train, X test, y test, classes) of UCI Adult's
    multiclass targets, split by its files (adult.test's labels end in a dot)."""
    from dpcvx.data.datasets import read_records
    from dpcvx.data.uci_domains import ADULT_CATEGORIES, adult_schema

    records = read_records("adult")
    test = np.char.endswith(records["label"].astype(str), ".")
    for target, dropped in REAL_TARGETS:
        schema = dpcvx.PublicSchema(tuple(c for c in adult_schema(constant_feature=False).columns
                                          if c.name not in (target, *dropped)), norm=1.0)
        keep = records[target] != "?"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X = schema.transform({name: records[name][keep] for name in schema.column_names})
        y, part = records[target][keep], test[keep]
        classes = tuple(ADULT_CATEGORIES[target])
        yield f"Adult {target} k={len(classes)}", X[~part], y[~part], X[part], y[part], classes


def _real() -> None:
    """Run the real family and write its results file with the rule's verdict (module docstring)."""
    from dpcvx.models.training_rows import PRIOR_ADVICE_FLOOR

    record = RunRecord("benchmarks.multiclass_prior", sys.argv[1:] or ["real"])
    lines = ["| table | epsilon | n x eps / k | constant acc. | default bal. acc. / acc. / macro-F1 | "
             "prior bal. acc. / acc. / macro-F1 | prior minus default (bal. acc.) | prior helps |",
             "|---|---|---|---|---|---|---|---|"]
    cells = []
    for name, X, y, Xt, yt, classes in real_tables():
        values, counts = np.unique(yt, return_counts=True)
        constant = float(counts.max() / yt.size)
        for eps in REAL_EPSILONS:
            a, b = _mean_scores(X, y, Xt, yt, classes, eps, REAL_SEEDS, macro_f1=True)
            scale = X.shape[0] * eps / len(classes)
            good = helps(b[0], a[0], b[1], constant)
            cells.append((scale, b[0] - a[0], b[1] - a[1], b[2] - a[2], b[1] < constant, good))
            lines.append(f"| {name} n={X.shape[0]} | {eps} | {scale:,.0f} | {constant:.3f} | "
                         f"{a[0]:.3f} / {a[1]:.3f} / {a[2]:.3f} | {b[0]:.3f} / {b[1]:.3f} / {b[2]:.3f} | "
                         f"{b[0] - a[0]:+.3f} | {'yes' if good else 'no'} |")
            print(lines[-1], flush=True)
    verdict = []
    for above in (False, True):
        side = f"s >= {PRIOR_ADVICE_FLOOR:,}" if above else f"s < {PRIOR_ADVICE_FLOOR:,}"
        mine = [c for c in cells if (c[0] >= PRIOR_ADVICE_FLOOR) == above]
        verdict.append(f"- real cells with {side}: {len(mine)}; prior HELPS in {sum(c[5] for c in mine)}; balanced "
                       f"accuracy better by more than 0.02 in {sum(c[1] > 0.02 for c in mine)}, worse by more than "
                       f"0.02 in {sum(c[1] < -0.02 for c in mine)}; accuracy lower than the default's in "
                       f"{sum(c[2] < 0 for c in mine)} and below a constant prediction's in "
                       f"{sum(c[4] for c in mine)}; macro-F1 lower than the default's in {sum(c[3] < 0 for c in mine)}"
                       + (f" (balanced accuracy change {min(c[1] for c in mine):+.3f} to "
                          f"{max(c[1] for c in mine):+.3f})" if mine else ""))
    stands = all(c[5] for c in cells if c[0] >= PRIOR_ADVICE_FLOOR)
    verdict.append("- rule: " + ("the many-class advice at or above the floor stands" if stands else
                                 "the prior did not HELP in every real cell at or above the floor: the note advises "
                                 "it at no k and says it was measured both ways"))
    text = "\n".join(["# One-vs-rest with class_prior='private', threshold='prior': the real family (UCI Adult)", "",
                      f"Written by `{record.command}` (the family and the rule: the script's docstring, written "
                      "before the run). Each cell: the mean over its seeds (three). s = n x epsilon / k, n the "
                      "training rows (adult.data); scored on adult.test.", "", *verdict, "", *lines])
    print(write_markdown(RESULTS_DIR / "multiclass_prior_real.md", text, record))


def main(which: str) -> None:
    if which in ("many", "many_held"):
        _many(which)
        return
    if which == "moderate":
        _moderate()
        return
    if which == "ordinal":
        _ordinal()
        return
    if which == "real":
        _real()
        return
    record = RunRecord("benchmarks.multiclass_prior", [which])
    tables = dev_tables() if which == "dev" else held_tables()
    lines = ["| table | epsilon | sklearn bal. acc. / acc. | default bal. acc. / acc. | prior bal. acc. / acc. |",
             "|---|---|---|---|---|"]
    cells: dict[bool, list[tuple[float, float, float, float]]] = {False: [], True: []}
    for name, imbalanced, X, y, Xt, yt, epsilons, seeds in tables:
        k = int(y.max()) + 1
        classes = tuple(range(k))
        reference = _scores(yt, LogisticRegression(C=1.0, max_iter=2000).fit(X, y).predict(Xt))
        for eps in epsilons:
            a, b = _mean_scores(X, y, Xt, yt, classes, eps, seeds)
            cells[imbalanced].append((a[0], a[1], b[0], b[1]))
            lines.append(f"| {name} | {eps} | {reference[0]:.3f} / {reference[1]:.3f} | {a[0]:.3f} / {a[1]:.3f} | "
                         f"{b[0]:.3f} / {b[1]:.3f} |")
            print(lines[-1], flush=True)
    summary = []
    for imbalanced, label in ((False, "balanced"), (True, "imbalanced")):
        if cells[imbalanced]:
            m = np.mean(cells[imbalanced], axis=0)
            worst = np.min(np.array(cells[imbalanced])[:, 2] - np.array(cells[imbalanced])[:, 0])
            summary.append(f"- {label} tables ({len(cells[imbalanced])} cells, mean of seeds each): balanced accuracy "
                           f"default {m[0]:.3f}, prior {m[2]:.3f} (prior minus default, worst cell {worst:+.3f}); "
                           f"accuracy default {m[1]:.3f}, prior {m[3]:.3f}")
    family = "development" if which == "dev" else "held-out"
    text = "\n".join([f"# One-vs-rest with class_prior='private', threshold='prior': the {family} family", "",
                      f"Written by `python -m benchmarks.multiclass_prior {which}` (the families and the rule for the "
                      "default: the script's docstring). Each cell: the mean over its seeds.", "", *summary, "",
                      *lines])
    print(write_markdown(RESULTS_DIR / f"multiclass_prior_{which}.md", text, record))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dev")
