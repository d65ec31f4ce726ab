"""Does ``threshold=`` the public positive rate help where the NOT PRIVATE TrainingRowsWarning says a default binary
release predicts one class (or nearly one class) on its training rows?

An analyst probe (session 70, P2 finding 1) fitted DPLogisticRegression() on a 0.4 %-positive table of 120,000 rows:
the release predicted "not fraud" on every row at epsilon 1 and 3, and the only signal, the NOT PRIVATE
TrainingRowsWarning, advised dpcvx.tune with class_prior / class_weight and never ``threshold=`` at the public rate,
the setting the README calls the first thing to try (post-processing of the same release, no privacy spent).

Each cell fits DPLogisticRegression(epsilon) with its defaults on a seeded 75/25 split and records the
TrainingRowsWarning's finding (:mod:`dpcvx.models.training_rows`), then scores the SAME release on the held-out rows
at threshold 1/2 and at the table's public positive rate (``set_params(threshold=rate)``: no second fit). Counted,
over the fits where the finding is ONE_CLASS or NEARLY_ONE_CLASS: in how many the public-rate threshold raised the
held-out balanced accuracy, and by how much. Every fit (advised or not) also records the held-out accuracy and
macro-F1 of the same release at 1/2 and at the public rate, beside a constant prediction's (the training rows'
majority class): balanced accuracy is not the only score a user reads (an analyst probe, session 71, P8 finding 4,
saw Adult's accuracy fall to about the constant's at the public rate).

Each cell also records the report's public share of a uniform law on the declared domain that the release predicts
as its less predicted class (dpcvx.release.encodable.domain_share, the "Near one class" statement below
encodable.DOMAIN_SHARE) beside the held-out rows' share of that class.

Tables: benchmarks/real_tables.py's imbalanced binary tables (minority under 30 %; KDD left out for its run time,
and it never warns there) and two generated here: ``fraud`` (120,000 rows, 28 normal columns and a long-tailed
amount, 0.4 % positives: the probe's design) and ``readmit`` (25,000 rows, a diagnosis code of 1,500 levels of Zipf
frequency, 20 lab values, two flags, 11 % positives). The rates are design parameters, never counted on the rows.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python -m benchmarks.one_class_threshold [--splits 3] [--tables ...]

writes benchmarks/results/one_class_threshold.{json,md} (with the run's record).
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score, f1_score

import dpcvx
from benchmarks import common, real_tables
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models.training_rows import MISSED_CUT, NEARLY_ONE_CLASS, ONE_CLASS
from dpcvx.release.encodable import DOMAIN_SHARE, domain_share

EPSILONS = (0.3, 1.0, 3.0)
REAL = ("adult", "rare3", "coded80", "mixed10", "rare2", "alarms", "orders")
GENERATED = ("fraud", "readmit")
NAMES = {ONE_CLASS: "one class", NEARLY_ONE_CLASS: "nearly one class"}
#: the words of training_rows.public_rate_advice: the fits where the warning names the public rate's threshold
ADVICE = "the first thing to try is threshold"


def _intercept(logit: np.ndarray, rate: float) -> np.ndarray:
    """``logit`` shifted so that the mean of its sigmoid is the design's ``rate`` (bisection)."""
    low, high = -40.0, 40.0
    for _ in range(80):
        mid = (low + high) / 2
        if np.mean(1 / (1 + np.exp(-(logit + mid)))) > rate:
            high = mid
        else:
            low = mid
    return logit + (low + high) / 2


def fraud(seed: int = 0, n: int = 120_000) -> tuple[pd.DataFrame, np.ndarray, dpcvx.PublicSchema, float]:
    rng = np.random.default_rng(seed)
    V = rng.normal(0, 1, (n, 28))
    amount = np.clip(rng.lognormal(3.8, 1.4, n), 0, 25_000)
    w = np.zeros(28)
    w[[0, 2, 3, 9, 11, 13, 16]] = [-1.2, -0.9, 1.1, -0.8, 1.0, -1.3, -0.7]
    logit = _intercept(V @ w + 0.2 * np.log1p(amount), 0.004)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    frame = pd.DataFrame(V, columns=[f"V{j}" for j in range(28)]).assign(amount=amount)
    columns = tuple(dpcvx.NumericColumn(f"V{j}", -5, 5) for j in range(28)) + (
        dpcvx.NumericColumn("amount", 0, 25_000, scale="log"),)
    return frame, y, dpcvx.PublicSchema(columns, norm=1.0), 0.004


def readmit(seed: int = 0, n: int = 25_000) -> tuple[pd.DataFrame, np.ndarray, dpcvx.PublicSchema, float]:
    rng = np.random.default_rng(seed)
    levels = 1500
    share = 1.0 / np.arange(1, levels + 1) ** 1.1
    code = rng.choice(levels, size=n, p=share / share.sum())
    stay = np.clip(np.round(rng.gamma(1.5, 3.5, n)), 0, 90)
    labs = rng.normal(0, 1, (n, 20))
    insured, earlier = rng.random(n) < 0.7, rng.random(n) < 0.25
    logit = (rng.normal(0, 0.8, levels)[code] + 0.06 * stay + 0.5 * labs[:, 0] - 0.4 * labs[:, 3]
             + 0.3 * labs[:, 7] + 0.8 * earlier - 0.3 * insured)
    y = (rng.random(n) < 1 / (1 + np.exp(-_intercept(logit, 0.11)))).astype(int)
    names = [f"d{k:04d}" for k in range(levels)]
    frame = pd.DataFrame({"diag": np.array(names)[code], "stay": stay})
    for j in range(20):
        frame[f"lab{j}"] = np.clip(5 + labs[:, j], 0, 10)
    frame["insured"], frame["earlier"] = insured.astype(int).astype(str), earlier.astype(int).astype(str)
    columns = ((dpcvx.CategoricalColumn("diag", tuple(names)), dpcvx.NumericColumn("stay", 0, 90))
               + tuple(dpcvx.NumericColumn(f"lab{j}", 0, 10) for j in range(20))
               + (dpcvx.CategoricalColumn("insured", ("0", "1")), dpcvx.CategoricalColumn("earlier", ("0", "1"))))
    return frame, y, dpcvx.PublicSchema(columns, norm=1.0), 0.11


def table(name: str) -> tuple[np.ndarray, np.ndarray, tuple, float, dpcvx.PublicSchema | None]:
    """(encoded rows, labels, classes, the public positive rate, the public schema that encoded them)."""
    if name in GENERATED:
        frame, y, schema, rate = {"fraud": fraud, "readmit": readmit}[name]()
        return np.asarray(schema.fit_transform(frame), dtype=float), y, (0, 1), rate, schema
    loaded = real_tables.load(name)
    assert loaded.prior is not None
    return loaded.X, loaded.y, loaded.classes, loaded.prior, loaded.schema


def cell(X: np.ndarray, y: np.ndarray, classes: tuple, rate: float, epsilon: float, split: int,
         schema: dpcvx.PublicSchema | None = None) -> dict[str, Any]:
    order = common.generator(0, split).permutation(y.size)
    cut = int(round(0.75 * y.size))
    train, test = order[:cut], order[cut:]
    estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=classes, random_state=common.int_seed(0, split, 70))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X[train], y[train])
    told = [w.message for w in caught if issubclass(w.category, TrainingRowsWarning)]
    findings = [getattr(message, "finding", None) for message in told]
    public = sorted({w.category.__name__ for w in caught if not issubclass(w.category, TrainingRowsWarning)})
    predicted = estimator.predict(X[test])
    default = balanced_accuracy_score(y[test], predicted)
    # the report's public share of a uniform law on the declared domain (encodable.domain_share), at threshold 1/2,
    # beside the held-out rows' share of the same class
    share = domain_share(estimator.model_, schema)
    domain = None if share is None else {"class": share[0], "count": share[1], "bound": share[2],
                                         "held_out": float(np.mean(predicted == share[0]))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same release at another public cut: nothing new is fitted
        moved = estimator.set_params(threshold=rate).predict(X[test])
    at_rate = balanced_accuracy_score(y[test], moved)
    values, counts = np.unique(y[train], return_counts=True)
    constant = np.full(test.size, values[np.argmax(counts)])
    return {"accuracy": {name: float(np.mean(p == y[test])) for name, p in
                         (("default", predicted), ("at_rate", moved), ("constant", constant))},
            "macro_f1": {name: float(f1_score(y[test], p, average="macro", zero_division=0)) for name, p in
                         (("default", predicted), ("at_rate", moved), ("constant", constant))},
            "epsilon": epsilon, "split": split, "finding": findings[0] if findings else None, "public": public,
            # the one-class findings' advice only: MISSED_CUT names the same threshold (missed_cut.py's rate stage)
            "advised": any(ADVICE in str(message) and getattr(message, "finding", None) != MISSED_CUT
                           for message in told), "domain": domain,
            "default": float(default), "at_rate": float(at_rate)}


def summary(records: dict[str, list[dict]]) -> str:
    lines = ["# threshold= the public rate where the training-rows check says one class (benchmarks/"
             "one_class_threshold.py)", "",
             "Balanced accuracy on held-out rows of the same release at threshold 1/2 (default) and at the public "
             "positive rate. Advised: fits whose NOT PRIVATE TrainingRowsWarning said one class or nearly one class "
             "(missing the rarer class) and named threshold= the public rate (training_rows.public_rate_advice).", "",
             "| table | rate | epsilon | fits | advised | default (advised fits) | at the public rate | raised in |",
             "|---|---|---|---|---|---|---|---|"]
    fired_all: list[dict] = []
    for name, cells in records.items():
        for epsilon in EPSILONS:
            here = [c for c in cells if c["epsilon"] == epsilon]
            fired = [c for c in here if c["advised"]]
            fired_all += fired
            if not here:
                continue

            def mean(key: str, fired: list[dict] = fired) -> str:
                return f"{np.mean([c[key] for c in fired]):.3f}" if fired else "-"
            raised = sum(c["at_rate"] > c["default"] for c in fired)
            lines.append(f"| {name} | {cells[0]['rate']:g} | {epsilon:g} | {len(here)} | {len(fired)} | "
                         f"{mean('default')} | {mean('at_rate')} | {raised} of {len(fired)} |")
    gains = [c["at_rate"] - c["default"] for c in fired_all]
    lines += ["", f"Over every advised fit: {len(fired_all)} fits on {len({c['table'] for c in fired_all})} tables; "
              f"the public rate's threshold raised held-out balanced accuracy in {sum(g > 0 for g in gains)}, left it "
              f"equal in {sum(g == 0 for g in gains)} and lowered it in {sum(g < 0 for g in gains)}"
              + (f", by {min(gains):+.3f} to {max(gains):+.3f} (balanced accuracy, mean "
                 f"{np.mean([c['default'] for c in fired_all]):.3f} to "
                 f"{np.mean([c['at_rate'] for c in fired_all]):.3f})"
                 if gains else "") + "."]
    lines += ["", "## What the public rate's cut costs: accuracy and macro-F1 (every fit)", "",
              "The same release on the held-out rows at threshold 1/2 (default) and at the public rate, every fit "
              "(advised or not), beside a constant prediction of the training rows' majority class; means over the "
              "splits.", "",
              "| table | epsilon | fits | bal. acc. default / at rate | accuracy default / at rate / constant | "
              "macro-F1 default / at rate / constant |", "|---|---|---|---|---|---|"]
    every = [c for cells in records.values() for c in cells if "accuracy" in c]
    for name, cells in records.items():
        for epsilon in EPSILONS:
            here = [c for c in cells if c["epsilon"] == epsilon and "accuracy" in c]
            if not here:
                continue

            def both(score: str, here: list[dict] = here) -> str:
                return " / ".join(f"{np.mean([c[score][k] for c in here]):.3f}"
                                  for k in ("default", "at_rate", "constant"))
            lines.append(f"| {name} | {epsilon:g} | {len(here)} | {np.mean([c['default'] for c in here]):.3f} / "
                         f"{np.mean([c['at_rate'] for c in here]):.3f} | {both('accuracy')} | {both('macro_f1')} |")
    if every:
        lost = sum(c["accuracy"]["at_rate"] < c["accuracy"]["default"] for c in every)
        under = sum(c["accuracy"]["at_rate"] < c["accuracy"]["constant"] for c in every)
        f1_lost = sum(c["macro_f1"]["at_rate"] < c["macro_f1"]["default"] for c in every)
        lines += ["", f"Over every fit ({len(every)}): at the public rate accuracy fell in {lost} and fell below the "
                  f"constant prediction's in {under}; macro-F1 fell in {f1_lost}; balanced accuracy rose in "
                  f"{sum(c['at_rate'] > c['default'] for c in every)}."]
    everything = [c for cells in records.values() for c in cells if c.get("domain")]
    said = [c for c in everything if c["domain"]["bound"] < DOMAIN_SHARE]
    useful = [c for c in everything if c["default"] > 0.51]
    lines += ["", f"The report's domain share (encodable.domain_finding: the less predicted class's share of a uniform "
              f"law on the declared domain, 95 % bound below {DOMAIN_SHARE:g}), over the {len(everything)} fits with "
              f"a schema: said of {len(said)}"
              + (f"; on their held-out rows that class was predicted on at most "
                 f"{100 * max(c['domain']['held_out'] for c in said):.2f} % and balanced accuracy was at most "
                 f"{max(c['default'] for c in said):.3f}" if said else "")
              + (f". The {len(useful)} fits of balanced accuracy above 0.51 had uniform shares of "
                 f"{min(c['domain']['count'] for c in useful) / 20_000:.3f} or more" if useful else "") + "."]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> dict:
    records: dict[str, list[dict]] = {}
    for name in args.tables:
        X, y, classes, rate, schema = table(name)
        records[name] = [{**cell(X, y, classes, rate, epsilon, split, schema), "rate": rate, "table": name}
                         for epsilon in EPSILONS for split in range(args.splits)]
        print(name, [(c["epsilon"], c["advised"], c["finding"] and NAMES.get(c["finding"], "other"),
                      round(c["default"], 3), round(c["at_rate"], 3)) for c in records[name]], flush=True)
    return {"records": records}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--tables", nargs="*", default=list(GENERATED + REAL))
    parser.add_argument("--out", default=str(common.RESULTS_DIR))
    parser.add_argument("--tag", default="one_class_threshold")
    return common.run_recorded("benchmarks.one_class_threshold", parser, argv, run,
                               lambda result, _: summary(result["records"]))


if __name__ == "__main__":
    main()
