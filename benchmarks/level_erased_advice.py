"""LevelErasedWarning's fixes, measured per estimator on two generated tables of an analyst probe (session 70, P7).

Finding 2 of that probe: on ratings 1..10 regressed on 30 log-normal columns (0.3 % data-entry errors at 1000 times
the median) whose declared ranges are the documented maxima (1000 times the median), the warning named
encoding="unit" first; for DPHuberRegressor it changed nothing (held-out R^2 about 0) and silenced the
TrainingRowsWarning, while the log scale and the documented 99 % points as ranges helped. Finding 5: on a weather
sensor table a nearly constant battery voltage (3.6 +- 0.05 V declared 0..5 V) that carries no signal drew the
warning's second form on every fit, and its fix (the schema's largest row norm) changed nothing.

Tables (generated here, same construction as the probe's, seeds 0, 1, 2; 3/4 of the rows fit, 1/4 held back):

* ``rating``: n 12,000, ratings 1..10 from 8 of the 30 columns' logarithms; schemas ``max`` (the documented
  maxima, centred: the probe's), ``max unit`` (the same, encoding="unit": the warning's first fix there),
  ``max log`` (the same ranges, NumericColumn(scale="log")), ``p99`` (the documented 99 % points, centred).
  DPHuberRegressor() and DPLinearRegression() with label_bound=(1, 10), epsilon 1 and 3.
* ``sensor``: n 20,000, the probe's table (temperature from hour and day; two humidity probes, pressure, wind,
  solar, soil, a logged copy of the target), battery 3.6 +- 0.05 V declared (0, 5); schemas ``default`` (norm 1),
  ``norm`` (the warning's fix: norm and data_norm at the schema's largest row norm), ``no battery`` (the column
  dropped).
  DPLinearRegression() and DPHuberRegressor(column_statistics=False), label_bound=(-30, 50), epsilon 1.

* ``pixels`` (an analyst probe of session 71, P2 finding 9): n 5,000 8x8 images of 10 balanced digit classes, each
  pixel declared 0..16, the 22 border pixels 0 in every row (a public fact of the scanner); schemas ``default``
  (centred), ``unit`` and ``no border`` (the 22 dropped). DPLogisticRegression(), epsilon 1 and 3; held-out accuracy,
  and which form of LevelErasedWarning fired (``_form``).

Per cell: the mean held-out R^2 over the seeds, and on how many fits each NOT PRIVATE warning fired
(LevelErasedWarning, TrainingRowsWarning). For the weak DPHuberRegressor fits, their R^2 on the training rows and how
many standard errors they are from the rows' mean there (z): whether a cut "no better than a constant within noise"
would have caught the release that "unit" left at held-out R^2 0.006. ``python -m benchmarks.level_erased_advice``
writes results/level_erased_advice.md (under a minute on one core). Exploration, no rule chosen from it: it names
which fix did what on these two tables, which is all the warning's text claims.

Recorded (results/level_erased_advice.md, session 70): as the probe found. DPHuberRegressor: -0.010 / -0.002 (max),
-0.010 / 0.006 (max unit), 0.493 / 0.499 (max log), 0.462 / 0.548 (p99) at epsilon 1 / 3; DPLinearRegression 0.511 /
0.539, 0.557 / 0.574, 0.590 / 0.614, 0.562 / 0.578. Sensor: the battery column warned on 6 of 6 default fits; the
advised norm moved R^2 by +0.003 and -0.001, dropping the column by +0.001 and 0. The cut: of the six "max unit"
Huber fits, those at epsilon 3 (held-out 0.004 to 0.007) are 2.0 to 4.1 standard errors better than the mean on their
training rows, so a cut "within two standard errors of a constant" (NO_BETTER's for classifiers) would not have
caught them; it would have added one fit (epsilon 1, z 0.3) to the four R^2 <= 0 already caught. Catching R^2 0.006
needs an absolute floor on R^2, a line of usefulness that the check does not claim, so the cut stays R^2 <= 0; the
LevelErasedWarning's text now says that a warning that goes quiet does not say the release is useful.

Recorded (session 71): the rating and sensor cells as above, to the digit, and the new form of the warning (a column
at one value, dpcvx.data.shared_level.ONE_VALUE_SHARE) fired on none of their fits. Pixels, mean accuracy at epsilon
1 / 3: 0.177 / 0.334 default (the new form fired on 6 of 6 fits; no other form fired), 0.192 / 0.410 unit (better
than the default in 5 of 6 fits), 0.207 / 0.435 no border (6 of 6); neither fix drew the warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown
from dpcvx import (
    DPHuberRegressor,
    DPLinearRegression,
    DPLogisticRegression,
    LevelErasedWarning,
    NumericColumn,
    PublicSchema,
    RangeClipWarning,
    TrainingRowsWarning,
)

SEEDS = (0, 1, 2)


def rating(seed: int, n: int = 12_000, d: int = 30) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Columns, ratings and the columns' medians (their documented maxima are 1000 times these)."""
    rng = np.random.default_rng(2000 + seed)
    median = rng.uniform(5, 500, size=d)
    z = rng.normal(size=(n, d))
    x = median * np.exp(0.5 * z)
    errors = rng.uniform(size=(n, d)) < 0.003
    x[errors] = np.broadcast_to(1000 * median, (n, d))[errors]
    beta = np.zeros(d)
    beta[:8] = rng.normal(0, 0.5, size=8)
    y = np.clip(np.round(7.3 + z @ beta + rng.normal(0, 0.9, size=n)), 1, 10)
    return pd.DataFrame(x, columns=[f"f{j:02d}" for j in range(d)]), y, median


def rating_schemas(frame: pd.DataFrame, median: np.ndarray) -> dict[str, PublicSchema]:
    names = list(frame.columns)
    top = 1000 * median
    p99 = np.round(median * np.exp(0.5 * 2.326), 1)
    return {
        "max": PublicSchema(tuple(NumericColumn(c, 0, h) for c, h in zip(names, top, strict=True))),
        "max unit": PublicSchema(tuple(NumericColumn(c, 0, h) for c, h in zip(names, top, strict=True)),
                                 encoding="unit"),
        "max log": PublicSchema(tuple(NumericColumn(c, 0, h, scale="log")
                                      for c, h in zip(names, top, strict=True))),
        "p99": PublicSchema(tuple(NumericColumn(c, 0, h) for c, h in zip(names, p99, strict=True))),
    }


def sensor(seed: int, n: int = 20_000) -> tuple[pd.DataFrame, np.ndarray]:
    """The probe's weather table: temperature from the season and hour, two humidity probes, pressure, wind, solar,
    soil, a logged copy of the target (``logger_t``) and the battery voltage."""
    rng = np.random.default_rng(5000 + seed)
    hour = rng.integers(0, 24, size=n).astype(float)
    day = rng.integers(1, 366, size=n).astype(float)
    season = 15 * np.sin(2 * np.pi * (day - 110) / 365)
    t = np.clip(10 + season + 6 * np.sin(2 * np.pi * (hour - 9) / 24) + rng.normal(0, 4, size=n), -30, 50)
    hum1 = np.clip(80 - 0.8 * (t - 10) + rng.normal(0, 8, size=n), 0, 100)
    frame = pd.DataFrame({
        "hour": hour, "day": day, "hum1": hum1, "hum2": np.clip(hum1 + rng.normal(0, 0.5, size=n), 0, 100),
        "pressure": 1013 + rng.normal(0, 8, size=n), "wind": rng.gamma(2, 2, size=n),
        "solar": np.clip(800 * np.maximum(0, np.sin(np.pi * (hour - 6) / 12)) * (1 + season / 30)
                         + rng.normal(0, 40, size=n), 0, 1400),
        "soil": np.clip(0.6 * t + 4 + rng.normal(0, 3, size=n), -20, 45), "logger_t": t + rng.normal(0, 0.3, size=n),
        "battery": 3.6 + rng.normal(0, 0.05, size=n)})
    return frame, t


SENSOR_COLUMNS = (NumericColumn("hour", 0, 23), NumericColumn("day", 1, 366), NumericColumn("hum1", 0, 100),
                  NumericColumn("hum2", 0, 100), NumericColumn("pressure", 900, 1100), NumericColumn("wind", 0, 60),
                  NumericColumn("solar", 0, 1400), NumericColumn("soil", -20, 45),
                  NumericColumn("logger_t", -30, 50), NumericColumn("battery", 0, 5))


#: The pixel table's border: row 0, columns 0 and 7 of an 8x8 image (22 of the 64 pixels), 0 in every row
BORDER = tuple(sorted({j for j in range(8)} | {8 * i for i in range(8)} | {8 * i + 7 for i in range(8)}))


def pixels(seed: int, n: int = 5_000) -> tuple[pd.DataFrame, np.ndarray]:
    """8x8 grey images of 10 balanced digit classes, each pixel 0..16 (an analyst probe's table, session 71, P2
    finding 9): per class five short strokes of ink 14 inside the 6x6 middle, Gaussian noise of 4, each image
    shifted by -1, 0 or 1 columns, the top row and the left and right columns blanked (the scanner's border: 0 in
    every row, a public fact of the device), rounded and clipped to 0..16."""
    rng = np.random.default_rng(7000 + seed)
    shapes = np.zeros((10, 8, 8))
    for digit in range(10):
        for _ in range(5):
            (i0, j0), (di, dj) = rng.integers(1, 7, size=2), rng.integers(-1, 2, size=2)
            for step in range(4):
                i, j = i0 + step * di, j0 + step * dj
                if 1 <= i <= 6 and 1 <= j <= 6:
                    shapes[digit, i, j] = 14
    y = rng.permutation(np.repeat(np.arange(10), n // 10))
    images = shapes[y] + rng.normal(0, 4, size=(y.size, 8, 8))
    shift = rng.integers(-1, 2, size=y.size)
    images = np.stack([np.roll(image, s, axis=1) for image, s in zip(images, shift, strict=True)])
    images[:, 0, :] = images[:, :, 0] = images[:, :, 7] = 0
    flat = np.clip(np.round(images), 0, 16).reshape(y.size, 64)
    return pd.DataFrame(flat, columns=[f"px{j:02d}" for j in range(64)]), y


def pixel_schemas(frame: pd.DataFrame) -> dict[str, tuple[PublicSchema, list[str]]]:
    """``default`` (centred, every pixel declared 0..16), ``unit`` (the same, encoding="unit"), ``no border`` (the
    22 border pixels dropped: the public fact of the scanner). Each with the columns it reads."""
    names = list(frame.columns)
    inner = [c for j, c in enumerate(names) if j not in BORDER]
    every = tuple(NumericColumn(c, 0, 16) for c in names)
    return {"default": (PublicSchema(every), names), "unit": (PublicSchema(every, encoding="unit"), names),
            "no border": (PublicSchema(tuple(NumericColumn(c, 0, 16) for c in inner)), inner)}


def _form(message: str) -> str:
    """Which form of the LevelErasedWarning a text is (dpcvx.data.shared_level): ``one value`` (a column at one
    value), ``column`` (a column's own variation) or ``level`` (the common level)."""
    if "hold one value in every row read" in message:
        return "one value"
    return "column" if "vary less within their declared ranges" in message else "level"


def _classify(schema: PublicSchema, columns: list[str], frame: pd.DataFrame, y: np.ndarray, epsilon: float,
              seed: int) -> tuple[float, list[str]]:
    """Held-out accuracy of DPLogisticRegression on the pixel table, and the forms of LevelErasedWarning shown."""
    order = np.random.default_rng(seed).permutation(len(y))
    train, test = order[: 3 * len(y) // 4], order[3 * len(y) // 4:]
    model = DPLogisticRegression(epsilon=epsilon, classes=tuple(range(10)), random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(schema.fit_transform(frame.iloc[train][columns]), y[train])
    forms = sorted({_form(str(w.message)) for w in caught if issubclass(w.category, LevelErasedWarning)})
    with warnings.catch_warnings():  # predict's notes on the held-back rows are no part of the question
        warnings.simplefilter("ignore", RangeClipWarning)
        predicted = model.predict(schema.transform(frame.iloc[test][columns]))
    return float(np.mean(predicted == y[test])), forms


def _fit(schema: PublicSchema, model, frame: pd.DataFrame, y: np.ndarray,
         seed: int) -> tuple[float, set[str], tuple[float, float]]:
    order = np.random.default_rng(seed).permutation(len(y))
    train, test = order[: 3 * len(y) // 4], order[3 * len(y) // 4:]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = schema.fit_transform(frame.iloc[train])
        model.fit(rows, y[train])
    fired = {w.category.__name__ for w in caught if issubclass(w.category, (LevelErasedWarning, TrainingRowsWarning))}
    fired |= {f"form: {_form(str(w.message))}" for w in caught if issubclass(w.category, LevelErasedWarning)}
    with warnings.catch_warnings():  # predict's notes on the held-back rows are no part of the question
        warnings.simplefilter("ignore", RangeClipWarning)
        predicted = model.predict(schema.transform(frame.iloc[test]))
    truth = y[test]
    return float(1 - np.sum((truth - predicted) ** 2) / np.sum((truth - truth.mean()) ** 2)), fired, _training(
        model, rows, y[train])


def _training(model, rows: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """The release's R^2 on its training rows and z, the mean of g_i = (y_i - mean)^2 - (y_i - f_i)^2 (what the
    release gains on row i over the rows' mean) over its standard error: how far from a constant it is, in the
    rows' own noise (|z| < 2: no measurably better; the TrainingRowsWarning's classification rule NO_BETTER uses two
    standard errors the same way)."""
    with warnings.catch_warnings():  # predict's notes on the rows are no part of the question
        warnings.simplefilter("ignore", RangeClipWarning)
        predicted = model.predict(rows)
    gain = (labels - labels.mean()) ** 2 - (labels - predicted) ** 2
    return (float(gain.sum() / np.sum((labels - labels.mean()) ** 2)),
            float(gain.mean() / (gain.std(ddof=1) / np.sqrt(gain.size))))


def measure() -> list[dict]:
    rows = []
    for seed in SEEDS:
        frame, y, median = rating(seed)
        for epsilon in (1.0, 3.0):
            for schema_name, schema in rating_schemas(frame, median).items():
                for name, make in (("DPHuberRegressor()", DPHuberRegressor),
                                   ("DPLinearRegression()", DPLinearRegression)):
                    model = make(epsilon=epsilon, label_bound=(1, 10), random_state=seed)
                    r2, fired, (train_r2, z) = _fit(schema, model, frame, y, seed)
                    rows.append(dict(table="rating", schema=schema_name, estimator=name, epsilon=epsilon, seed=seed,
                                     r2=r2, fired=sorted(fired), train_r2=train_r2, z=z))
        frame, y = sensor(seed)
        largest = PublicSchema(SENSOR_COLUMNS).fit(frame).largest_row_norm
        for schema_name, schema, norm, part in (
                ("default", PublicSchema(SENSOR_COLUMNS), 1.0, frame),
                ("norm", PublicSchema(SENSOR_COLUMNS, norm=largest), largest, frame),
                ("no battery", PublicSchema(SENSOR_COLUMNS[:-1]), 1.0, frame.drop(columns="battery"))):
            for name, model in (("DPLinearRegression()", DPLinearRegression(epsilon=1.0, label_bound=(-30, 50),
                                                                             data_norm=norm, random_state=seed)),
                                ("DPHuberRegressor(column_statistics=False)",
                                 DPHuberRegressor(epsilon=1.0, label_bound=(-30, 50), data_norm=norm,
                                                  column_statistics=False, random_state=seed))):
                r2, fired, (train_r2, z) = _fit(schema, model, part, y, seed)
                rows.append(dict(table="sensor", schema=schema_name, estimator=name, epsilon=1.0, seed=seed, r2=r2,
                                 fired=sorted(fired), train_r2=train_r2, z=z))
        frame, y = pixels(seed)
        for epsilon in (1.0, 3.0):
            for schema_name, (schema, columns) in pixel_schemas(frame).items():
                accuracy, forms = _classify(schema, columns, frame, y, epsilon, seed)
                rows.append(dict(table="pixels", schema=schema_name, estimator="DPLogisticRegression()",
                                 epsilon=epsilon, seed=seed, accuracy=accuracy, forms=forms))
    return rows


def table(rows: list[dict]) -> list[str]:
    lines = ["| table | estimator | epsilon | schema | mean R^2 | R^2 range | LevelErased | of it, one value | "
             "TrainingRows |", "|---|---|---|---|---|---|---|---|---|"]
    rows = [r for r in rows if "r2" in r]
    keys = sorted(dict.fromkeys((r["table"], r["estimator"], r["epsilon"], r["schema"]) for r in rows),
                  key=lambda k: (k[0], k[1], k[2]))  # stable: the schemas in the order they were fitted
    for table_name, estimator, epsilon, schema in keys:
        cell = [r for r in rows if (r["table"], r["estimator"], r["epsilon"], r["schema"]) ==
                (table_name, estimator, epsilon, schema)]
        r2 = [r["r2"] for r in cell]
        count = {k: sum(k in r["fired"] for r in cell)
                 for k in ("LevelErasedWarning", "form: one value", "TrainingRowsWarning")}
        lines.append(f"| {table_name} | {estimator} | {epsilon:g} | {schema} | {np.mean(r2):.3f} | "
                     f"{min(r2):.3f} .. {max(r2):.3f} | {count['LevelErasedWarning']}/{len(cell)} | "
                     f"{count['form: one value']}/{len(cell)} | {count['TrainingRowsWarning']}/{len(cell)} |")
    return lines


def pixel_table(rows: list[dict]) -> list[str]:
    """The pixel table's cells: mean held-out accuracy, its range over the seeds, and the fits on which each form of
    LevelErasedWarning fired."""
    lines = ["| epsilon | schema | mean accuracy | range | one value | column | level |",
             "|---|---|---|---|---|---|---|"]
    cells = dict.fromkeys((r["epsilon"], r["schema"]) for r in rows if r["table"] == "pixels")
    for epsilon, schema in cells:
        cell = [r for r in rows if r["table"] == "pixels" and (r["epsilon"], r["schema"]) == (epsilon, schema)]
        accuracy = [r["accuracy"] for r in cell]
        lines.append(f"| {epsilon:g} | {schema} | {np.mean(accuracy):.3f} | {min(accuracy):.3f} .. "
                     f"{max(accuracy):.3f} | "
                     + " | ".join(f"{sum(f in r['forms'] for r in cell)}/{len(cell)}"
                                  for f in ("one value", "column", "level")) + " |")
    return lines


def main() -> None:
    record = RunRecord("benchmarks.level_erased_advice")
    rows = measure()
    text = ["# LevelErasedWarning's fixes, per estimator (analyst probe s70 P7, findings 2 and 5)", "",
            "Written by `python -m benchmarks.level_erased_advice` (tables and settings: the module docstring). "
            "Held-out R^2 over seeds 0, 1, 2; the warning columns count the fits where each NOT PRIVATE warning "
            "fired (schema and fit).", "", *table(rows), "",
            "## Pixels (analyst probe s71 P2, finding 9)", "",
            "DPLogisticRegression(), 10 classes, held-out accuracy over seeds 0, 1, 2 (a constant prediction "
            "scores about 0.1); the form columns count the fits where each form of LevelErasedWarning fired.", "",
            *pixel_table(rows), "",
            "## The weak releases on their training rows", "",
            "Each DPHuberRegressor() fit of the rating table under `max` and `max unit`: R^2 on the training rows "
            "(the TrainingRowsWarning's R^2 <= 0 reads these) and z, the release's gain over the rows' mean in its "
            "standard errors (`_training`).", "",
            "| schema | epsilon | seed | held-out R^2 | training R^2 | z | TrainingRows |",
            "|---|---|---|---|---|---|---|",
            *(f"| {r['schema']} | {r['epsilon']:g} | {r['seed']} | {r['r2']:.4f} | {r['train_r2']:.4f} | "
              f"{r['z']:.1f} | {'yes' if 'TrainingRowsWarning' in r['fired'] else ''} |" for r in rows
              if r["table"] == "rating" and r["estimator"] == "DPHuberRegressor()" and r["schema"].startswith("max")
              and "log" not in r["schema"]), "",
            "## Fits", "", "```", *(str(r) for r in rows), "```", ""]
    write_markdown(RESULTS_DIR / "level_erased_advice.md", "\n".join(text), record)


if __name__ == "__main__":
    main()
