"""The command line on an Adult-like CSV: verify, fit (two ways to give the schema), predict.

Writes a small synthetic table with columns of the UCI Adult file (no
download), then runs the same commands an analyst would type:

    dpcvx verify --loss huber:h=0.5
    dpcvx fit adult-sample.csv --target income --positive '>50K' --negative '<=50K' \\
        --numeric age:17:90 --numeric education-num:1:16 --numeric hours-per-week:1:99 \\
        --categorical sex:Female,Male --epsilon 1 --data-norm 1 --fit-intercept \\
        --out model.json
    dpcvx fit adult-sample.csv ... --schema adult-schema.json --out model-schema.json
    dpcvx predict model.json adult-sample.csv --out predictions.csv

Run: python examples/cli_adult.py [--out DIRECTORY]
(every file goes to DIRECTORY, by default a new temporary directory removed
when the script ends; the commands run there).
"""

import argparse
import csv
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

from dpcvx.data.preprocessing import PublicSchema
from dpcvx.data.uci_domains import adult_schema

COLUMNS = ("age", "education-num", "hours-per-week", "sex", "marital-status")


def dpcvx(*args: str) -> subprocess.CompletedProcess:
    """Run `dpcvx ARGS` (as `python -m dpcvx.cli`, which works installed or not) and echo it."""
    print("$ " + shlex.join(["dpcvx", *args]))
    result = subprocess.run([sys.executable, "-m", "dpcvx.cli", *args], capture_output=True, text=True)
    print(result.stdout + result.stderr, end="")
    print(f"(exit status {result.returncode})\n")
    return result


def write_sample(path: str, n: int = 3000, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    married = ("Married-civ-spouse", "Never-married", "Divorced")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS + ("income",))
        for _ in range(n):
            age, education, hours = rng.integers(17, 91), rng.integers(1, 17), rng.integers(1, 100)
            sex, status = rng.choice(["Female", "Male"]), rng.choice(married)
            score = (0.04 * (age - 40) + 0.3 * (education - 10) + 0.03 * (hours - 40)
                     + (1.0 if status == married[0] else -0.5) + rng.normal())
            writer.writerow([age, education, hours, sex, status, ">50K" if score > 0 else "<=50K"])


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--out", default=None, help="directory for the CSV, schema, models and predictions")
# removed at exit (also when the working directory is inside it); --out keeps the files
scratch = tempfile.TemporaryDirectory(prefix="dpcvx-cli-example-", ignore_cleanup_errors=True)
out_dir = parser.parse_args().out or scratch.name
os.makedirs(out_dir, exist_ok=True)
os.chdir(out_dir)
print(f"working in {out_dir}\n")

write_sample("adult-sample.csv")
labels = ("--target", "income", "--positive", ">50K", "--negative", "<=50K")
privacy = ("--epsilon", "1", "--fit-intercept")
# The files below are this example's own, in its own directory: --overwrite replaces those an earlier run into the same
# --out DIRECTORY wrote (without it, dpcvx keeps an existing file and refuses, before any work).
again = ("--overwrite",)

assert dpcvx("verify", "--loss", "huber:h=0.5").returncode == 0
assert dpcvx("verify", "--loss", "logistic", "--allow-estimates", "--strict", "--mechanism", "output").returncode == 0

# The features on the command line: public bounds and categories.
flags = dpcvx("fit", "adult-sample.csv", *labels, "--numeric", "age:17:90", "--numeric", "education-num:1:16",
              "--numeric", "hours-per-week:1:99", "--categorical", "sex:Female,Male",
              *privacy, "--data-norm", "1", "--out", "model.json", *again)
assert flags.returncode == 0

# The same columns from the documented public Adult domains (dpcvx.data.uci_domains), in a schema file.
schema = adult_schema(constant_feature=False)
columns = tuple(c for c in schema.columns if c.name in COLUMNS)
PublicSchema(columns, norm=1.0).save("adult-schema.json", overwrite=True)
from_file = dpcvx("fit", "adult-sample.csv", *labels, "--schema", "adult-schema.json", "--loss", "huber:h=0.5",
                  *privacy, "--out", "model-schema.json", *again)
assert from_file.returncode == 0

assert dpcvx("predict", "model.json", "adult-sample.csv", "--out", "predictions.csv", *again).returncode == 0
with open("predictions.csv", newline="") as handle, open("adult-sample.csv", newline="") as truth:
    pairs = list(zip(csv.DictReader(handle), csv.DictReader(truth), strict=True))
accuracy = np.mean([p["prediction"] == t["income"] for p, t in pairs])
print(f"accuracy of model.json on its training sample: {accuracy:.3f}")

# An error: a label that is neither --positive nor --negative is refused, with the fix.
refused = dpcvx("fit", "adult-sample.csv", "--target", "income", "--positive", ">50K", "--negative", "no",
                "--numeric", "age:17:90", *privacy, "--data-norm", "1", "--out", "unused.json")
assert refused.returncode == 3  # an input error (docs/robustness.md lists the exit codes)
