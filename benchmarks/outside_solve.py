"""Memory and time outside the solve, before and after (session 62): a sparse fit's copies of X and the report.

In alternating processes that each import one dpcvx tree (``--before``, a checkout; and this tree), one BLAS thread:

- ``sparse``: the tracemalloc peak of ``DPLogisticRegression(epsilon=1, column_statistics=False).fit`` on a CSR of
  ``--rows`` x ``--columns`` with 30 entries per row (column indices drawn at random, repeats summed), over X's bytes
  (data, indices and indptr), with the rows inside the unit ball (``inside``) and of norm 1.3 (``clipped``: every
  row scaled onto R = 1, the NOT PRIVATE clipping note), after an untimed fit on 2,000 of the rows; and the fit's
  wall seconds without tracemalloc. Counts, not times: the peak does not depend on the machine's load.
- ``report``: a saved DPLogisticRegression release (20,000 x 20 rows): ``dpcvx report m.json --out r.md`` in a new
  process (its wall seconds, whether it imported matplotlib, and how many modules it imported), and in the child
  itself the first ``model.report().to_markdown()`` of the process and the median of 5 more (a new report each).

The rule, written before the run: the sparse fit's peak over X is below 1.6 after (3.14 in probeS on 200,000 x
20,000 rows inside the ball), and ``dpcvx report`` to a Markdown file imports no matplotlib after; the Markdown text
is the same bytes in both trees (its SHA-256 prefix is recorded). Times are shown as each process's value, in the
order run, the machine shared with other work.

    python -m benchmarks.outside_solve --before /tmp/dpcvx-before [--processes 3] [--rows 200000 --columns 20000]
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, write_table

SPARSE = """
import json, time, tracemalloc, warnings
import numpy as np, scipy.sparse as sparse
import dpcvx
warnings.simplefilter("ignore")
n, d, k = {rows}, {columns}, 30
rng = np.random.default_rng(11)
X = sparse.csr_matrix((rng.normal(size=n * k), rng.integers(0, d, n * k).astype(np.int32),
                       (np.arange(n + 1) * k).astype(np.int32)), shape=(n, d))
X.sum_duplicates()
norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
X = sparse.csr_matrix(sparse.diags({norm} / np.maximum(norms, 1e-300)) @ X)
y = (X @ rng.normal(size=d) + 0.1 * rng.logistic(size=n) > 0).astype(int)
size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, column_statistics=False)
learner.fit(X[:2000], y[:2000])
start = time.perf_counter(); learner.fit(X, y); seconds = time.perf_counter() - start
tracemalloc.start(); learner.fit(X, y); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
print(json.dumps([peak / size, seconds, size / 1e6]))
"""

REPORT = """
import hashlib, json, os, subprocess, sys, tempfile, time, warnings
import numpy as np
import dpcvx
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
X = rng.normal(size=(20000, 20)); X /= np.linalg.norm(X, axis=1, keepdims=True)
y = (X @ rng.normal(size=20) > 0).astype(int)
model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y).model_
tree = os.path.dirname(os.path.dirname(dpcvx.__file__))
with tempfile.TemporaryDirectory() as directory:
    path = dpcvx.save(model, os.path.join(directory, "m.json"))
    out = os.path.join(directory, "r.md")
    code = ("import sys, time\\nstart = time.perf_counter()\\nfrom dpcvx.cli import main\\n"
            f"status = main(['report', {str(path)!r}, '--out', {out!r}])\\n"
            "print(status, 'matplotlib' in sys.modules, len(sys.modules), time.perf_counter() - start)")
    env = {**os.environ, "PYTHONPATH": tree, "OPENBLAS_NUM_THREADS": "1"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                          cwd=directory)  # not this directory: "-c" puts the working directory first on sys.path
    wall = time.perf_counter() - start
    status, imported, modules, inside = done.stdout.split()[-4:]
    assert status == "0", done.stdout
    text = open(out).read()
start = time.perf_counter(); model.report().to_markdown(); first = time.perf_counter() - start
warm = []
for _ in range(5):
    start = time.perf_counter(); model.report().to_markdown(); warm.append(time.perf_counter() - start)
print(json.dumps([wall, imported == "True", int(modules), first, float(np.median(warm)),
                  hashlib.sha256(text.encode()).hexdigest()[:12]]))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.outside_solve", __doc__, "outside_solve", 3, [])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--columns", type=int, default=20_000)
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.outside_solve", argv), []
    for case, norm in (("inside", 0.999), ("clipped", 1.3)):
        cells = alternating(args.before, args.processes, SPARSE.format(rows=args.rows, columns=args.columns,
                                                                        norm=norm))
        for column, what, digits in ((0, "tracemalloc peak / X's bytes", 2), (1, "fit wall s (no tracemalloc)", 2)):
            values = [" / ".join(f"{output[column]:.{digits}f}" for output in cells[name]) for name in ("before",
                                                                                                       "after")]
            rows.append(f"| sparse fit, {args.rows:,} x {args.columns:,}, 30 per row "
                        f"({cells['after'][0][2]:.0f} MB), rows {case} | {what} | {values[0]} | {values[1]} |")
            print(rows[-1], flush=True)
    cells = alternating(args.before, args.processes, REPORT)
    for column, what, form in ((0, "`dpcvx report m.json --out r.md` wall s", ".2f"),
                               (1, "... imported matplotlib", ""), (2, "... modules imported", "d"),
                               (3, "first `report().to_markdown()` in a process, s", ".3f"),
                               (4, "median of 5 more, s", ".3f"), (5, "r.md SHA-256 prefix", "")):
        values = [" / ".join(format(output[column], form) if form else str(output[column])
                             for output in cells[name]) for name in ("before", "after")]
        rows.append(f"| report of a saved DPLogisticRegression | {what} | {values[0]} | {values[1]} |")
        print(rows[-1], flush=True)
    print(write_table(
        args.tag, record, "Outside the solve: a sparse fit's memory and the report, before and after (one BLAS "
        "thread)", f"Before: the tree at {args.before}, after: this tree. Each cell: one value per process, in the "
        "order run (before and after alternating). The rule, written before the run: the sparse fit's peak over X "
        "below 1.6 after, and no matplotlib import for a Markdown report after; the same Markdown bytes.",
        ["case", "measure", "before", "after"], rows))


if __name__ == "__main__":
    main()
