"""Which classes does a one-vs-rest release's report name as nearly never predicted over its declared domain, and
does the release predict them on held-out rows?

An analyst probe (session 71, P8 finding 2) fitted DPLogisticRegression(epsilon=1, classes=the five KDD Cup 99
categories) on kdd_schema(constant_feature=False): accuracy 0.981 (the constant predictor 0.793), balanced accuracy
0.396, only dos and normal ever predicted, and only a NOT PRIVATE TrainingRowsWarning said so. The report now names,
for a one-vs-rest release saved with its schema, each class it predicts on a share of the public uniform law on the
declared domain whose 95 % upper bound is below encodable.DOMAIN_SHARE (dpcvx.release.encodable.domain_rare_classes,
the binary "Near one class" draws and rule class by class).

Each cell fits DPLogisticRegression(epsilon, classes=the five categories) with its defaults on a seeded 75/25 split
of the whole 10 % file (494,021 records; labels mapped to the task description's categories), and records, class by
class, the share of the held-out rows that carry it, the share the release predicts it on, and its count of the
20,000 public draws (named or not), with the CPU time of domain_counts.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python -m benchmarks.multiclass_domain [--splits 3] [--epsilons 0.3 1 3]

writes benchmarks/results/multiclass_domain.{json,md} (with the run's record).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score

import dpcvx
from benchmarks import common
from dpcvx.data.datasets import KDD_COLUMNS, read_records
from dpcvx.data.uci_domains import kdd_schema
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.release.encodable import DOMAIN_DRAWS, DOMAIN_SHARE, domain_counts, domain_rare_classes

CLASSES = ("dos", "normal", "probe", "r2l", "u2r")
#: the KDD Cup 99 task description's categories (benchmarks/multiclass.py's)
CATEGORY = {"normal": "normal",
            **{name: "dos" for name in ("back", "land", "neptune", "pod", "smurf", "teardrop")},
            **{name: "probe" for name in ("ipsweep", "nmap", "portsweep", "satan")},
            **{name: "r2l" for name in ("ftp_write", "guess_passwd", "imap", "multihop", "phf", "spy", "warezclient",
                                        "warezmaster")},
            **{name: "u2r" for name in ("buffer_overflow", "loadmodule", "perl", "rootkit")}}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    return parser.parse_args(argv)


def table() -> tuple[np.ndarray, np.ndarray, dpcvx.PublicSchema]:
    """The 10 % file's codes under kdd_schema(constant_feature=False) (public bounds, log scale) and categories."""
    records = read_records("kdd")
    labels = np.array([CATEGORY[str(name).rstrip(".")] for name in records["label"]], dtype=object)
    schema = kdd_schema(constant_feature=False)
    frame = pd.DataFrame({column: records[column] for column in KDD_COLUMNS})
    return np.asarray(schema.transform(frame), dtype=float), labels, schema


def cell(X, y, schema, epsilon: float, split: int) -> dict:
    rng = np.random.default_rng(split)
    test = rng.random(len(y)) < 0.25
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TrainingRowsWarning)  # NOT PRIVATE: not what is measured
        estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=CLASSES, random_state=split)
        model = estimator.fit(X[~test], y[~test]).model_
    predicted = model.predict(X[test])
    start = time.process_time()
    counts = domain_counts(model, schema)
    seconds = time.process_time() - start
    named = {label for label, _, _ in domain_rare_classes(model, schema)}
    assert counts is not None
    return {"epsilon": epsilon, "split": split, "domain_cpu_s": seconds,
            "balanced_accuracy": float(balanced_accuracy_score(y[test], predicted)),
            "accuracy": float(np.mean(predicted == y[test])),
            "classes": {label: {"held_out_share": float(np.mean(y[test] == label)),
                                "predicted_share": float(np.mean(predicted == label)),
                                "draws": int(counts[i]), "named": label in named}
                        for i, label in enumerate(CLASSES)}}


def markdown(cells: list[dict]) -> str:
    lines = ["# Classes a one-vs-rest release nearly never predicts over its declared domain (KDD, 5 categories)", "",
             f"Each row one default DPLogisticRegression fit (seeded 75/25 split of the 10 % file; the module "
             f"docstring). Per class: its count of the {DOMAIN_DRAWS:,} public uniform draws on the declared domain "
             f"(encodable.domain_counts; * = named by the report, 95 % upper bound of its share below "
             f"{100 * DOMAIN_SHARE:g} %) / the held-out share predicted as it (the held-out share carrying it in the "
             "header, from the first split).", ""]
    first = cells[0]["classes"]
    lines += ["| epsilon | split | acc | bacc | " + " | ".join(f"{c} ({100 * first[c]['held_out_share']:.2f} %)"
                                                            for c in CLASSES) + " | CPU s |",
              "|---|---|---|---|" + "---|" * len(CLASSES) + "---|"]
    for c in cells:
        parts = [f"{k['draws']}{'*' if k['named'] else ''} / {100 * k['predicted_share']:.2f} %"
                 for k in (c["classes"][label] for label in CLASSES)]
        lines.append(f"| {c['epsilon']:g} | {c['split']} | {c['accuracy']:.3f} | {c['balanced_accuracy']:.3f} | "
                     + " | ".join(parts) + f" | {c['domain_cpu_s']:.2f} |")
    named = [(c["classes"][label]) for c in cells for label in CLASSES if c["classes"][label]["named"]]
    never = sum(k["predicted_share"] == 0 for k in named)
    lines += ["", f"Named: {len(named)} class-fits of {len(cells) * len(CLASSES)}; predicted on no held-out row: "
              f"{never}; the largest held-out share predicted as a named class: "
              f"{100 * max((k['predicted_share'] for k in named), default=0):.2f} %. Not named: "
              f"{len(cells) * len(CLASSES) - len(named)}, of which predicted on no held-out row: "
              f"{sum(k['predicted_share'] == 0 for c in cells for k in c['classes'].values() if not k['named'])}."]
    return "\n".join(lines)


def main(argv=None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.multiclass_domain", argv)
    with common.limit_threads(1):
        X, y, schema = table()
        cells = [cell(X, y, schema, epsilon, split) for epsilon in args.epsilons for split in range(args.splits)]
    text = common.write_markdown(args.out / "multiclass_domain.md", markdown(cells), record)
    common.write_json(args.out / "multiclass_domain.json", {"cells": cells, "run": record.finish(),
                                                            "settings": {"splits": args.splits,
                                                                         "epsilons": args.epsilons}})
    print(text)
    return {"cells": cells}


if __name__ == "__main__":
    main()
