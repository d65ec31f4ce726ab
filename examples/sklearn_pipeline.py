"""scikit-learn: a private classifier in a Pipeline, cross-validated, saved with its certificate.

The pipeline's first step encodes a table with PUBLIC bounds and categories
(dpcvx.PublicSchema): every row is mapped on its own and nothing is learnt
from the data, so it costs no privacy. Each fit of the classifier spends
epsilon; cross-validation fits several times on overlapping rows, so its
total privacy cost is the sum (see dpcvx.sklearn.classifiers).

Run: python examples/sklearn_pipeline.py [--out DIRECTORY]
(the saved model goes to DIRECTORY, by default a temporary directory removed when the script ends).
"""

import argparse
import tempfile
from pathlib import Path

import numpy as np
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import Pipeline

import dpcvx

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--out", type=Path, default=None, help="directory for the saved model")
scratch = tempfile.TemporaryDirectory(prefix="dpcvx-example-")  # removed at exit; --out keeps the files
out_dir = parser.parse_args().out or Path(scratch.name)

# A small census-like table: a dict of columns, labels 0/1.
rng = np.random.default_rng(0)
n = 4000
table = {
    "age": rng.integers(17, 91, size=n),
    "hours": rng.integers(1, 100, size=n),
    "sex": rng.choice(["Female", "Male"], size=n),
}
score = 0.05 * (table["age"] - 45) + 0.04 * (table["hours"] - 40) + np.where(table["sex"] == "Male", 0.6, -0.6)
y = (score + rng.normal(size=n) > 0).astype(int)
rows = np.column_stack([table["age"], table["hours"], table["sex"]]).astype(object)

schema = dpcvx.PublicSchema((
    dpcvx.NumericColumn("age", 17, 90, source="adult.names: age > 16; 90 is the top code"),
    dpcvx.NumericColumn("hours", 1, 99, source="two-digit hours field"),
    dpcvx.CategoricalColumn("sex", ("Female", "Male")),
), norm=1.0)

pipeline = Pipeline([
    ("public_encoding", schema),  # a PublicSchema is a transformer: rows with norm <= 1
    ("classifier", dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-3, data_norm=1.0)),
])

rows_train, rows_test, y_train, y_test = train_test_split(rows, y, test_size=0.25, random_state=0)
scores = cross_val_score(pipeline, rows_train, y_train, cv=5)
print(f"5-fold accuracy at epsilon = 1 per fit: {scores.mean():.3f} ± {scores.std():.3f}")

pipeline.fit(rows_train, y_train)
classifier = pipeline.named_steps["classifier"]
print(f"test accuracy: {pipeline.score(rows_test, y_test):.3f}")
print("P(y = 1) for three test rows:", pipeline.predict_proba(rows_test[:3])[:, 1].round(3))
print(classifier.certificate_)

# Save the pipeline: the file holds the release and its public schema; the loaded model predicts identically.
# overwrite=True: a run into the same --out DIRECTORY replaces the model an earlier run saved (without it, an
# existing file is kept and refused).
path = dpcvx.save(pipeline, out_dir / "sklearn-model.json", overwrite=True)
loaded = dpcvx.load(path)
assert np.array_equal(loaded.predict(loaded.schema.transform(rows_test)), pipeline.predict(rows_test))
print(f"saved to {path}; the loaded model's predictions are identical")

# Generic classifier: any verified loss, here by catalogue spec.
huber = dpcvx.DPERMClassifier(loss="huber:h=0.5", epsilon=1.0, mechanism="objective")
huber_pipeline = Pipeline([("public_encoding", schema), ("classifier", huber)])
print(f"Huber SVM, objective perturbation: test accuracy "
      f"{huber_pipeline.fit(rows_train, y_train).score(rows_test, y_test):.3f}")
