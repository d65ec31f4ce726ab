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
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score

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


def _scores(y, p) -> tuple[float, float]:
    return balanced_accuracy_score(y, p), float(np.mean(y == p))


def main(which: str) -> None:
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
            default, prior = [], []
            for seed in seeds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    plain = dpcvx.DPLogisticRegression(classes=classes, epsilon=eps, random_state=seed).fit(X, y)
                    cut = dpcvx.DPLogisticRegression(classes=classes, epsilon=eps, random_state=seed,
                                                     class_prior="private", threshold="prior").fit(X, y)
                default.append(_scores(yt, plain.predict(Xt)))
                prior.append(_scores(yt, cut.predict(Xt)))
            a, b = np.mean(default, axis=0), np.mean(prior, axis=0)
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
