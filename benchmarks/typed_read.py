"""The typed data path (issue 43): a table file to the encoded X, against pyarrow's typed read.

The table: the UCI Adult records (``adult.data``, 32,561 rows) repeated to ``--rows`` (300,000 by
default), its 14 columns and the label (15 columns), written once as a CSV file with a header and as
a Parquet file. Each measurement is the best of ``--repeats`` runs in this process (OPENBLAS_NUM_THREADS
pinned by the caller), side by side:

* CSV to X, dpcvx: ``read_table_columns`` (pyarrow's typed read when installed) then
  ``PublicSchema.transform`` with the public Adult schema (``adult_schema``);
* CSV to X, reference: ``pyarrow.csv.read_csv`` (typed columns) then scikit-learn's
  ``OneHotEncoder(handle_unknown="ignore")`` of the categorical columns beside the numeric ones
  (``ColumnTransformer``, the numeric columns passed through); the issue's target is dpcvx at most
  1.5 times this;
* CSV to X, dpcvx's standard-library reader (pyarrow hidden): the fallback, for the record;
* CSV to X by chunks of ``--chunk-rows`` records (the CLI's ``--chunk-rows``: ``table_chunks``, each chunk
  encoded), through pyarrow's streaming reader and through the standard-library reader;
* Parquet read: dpcvx's ``read_table_columns`` against ``pyarrow.parquet.read_table`` of the same
  columns; the target is at most 2 times pyarrow;
* Parquet to X, dpcvx: the read and the encoding.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.typed_read            # 300,000 rows, about 1 minute
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.typed_read --rows 30000 --repeats 1   # smoke run
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import common
from dpcvx.data.csv_table import Layout, read_table_columns, table_chunks
from dpcvx.data.datasets import find_data_directory
from dpcvx.data.uci_domains import ADULT_COLUMNS, adult_schema

LABEL = "income"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.typed_read", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk-rows", type=int, default=50_000)
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR)
    parser.add_argument("--tag", default=None)
    return parser.parse_args(argv)


def _best(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """(the shortest wall time of ``repeats`` runs, the last result)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def write_files(rows: int, directory: Path) -> tuple[Path, Path]:
    """The Adult records repeated to ``rows``, as data.csv (a header row) and data.parquet."""
    import pyarrow as pa
    import pyarrow.csv as arrow_csv
    import pyarrow.parquet as parquet

    source = find_data_directory(("adult.data",)) / "adult.data.gz"
    names = (*ADULT_COLUMNS, LABEL)
    records = read_table_columns(source, names, Layout(names=names))
    repeat = -(-rows // len(records[LABEL]))
    table = pa.table({name: np.tile(values, repeat)[:rows] for name, values in records.items()})
    numeric = adult_schema().numeric_names
    table = table.cast(pa.schema([(name, pa.float64() if name in numeric else pa.string()) for name in names]))
    csv_path, parquet_path = directory / "data.csv", directory / "data.parquet"
    arrow_csv.write_csv(table, csv_path)
    parquet.write_table(table, parquet_path)
    return csv_path, parquet_path


def reference_csv_to_x(path: Path, numeric: tuple[str, ...], categorical: tuple[str, ...]) -> np.ndarray:
    """pyarrow's typed read, then scikit-learn's one-hot of the categorical columns (numeric passed through)."""
    import pyarrow.csv as arrow_csv
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder

    frame = arrow_csv.read_csv(path).select([*numeric, *categorical]).to_pandas()
    encoder = ColumnTransformer([("numeric", "passthrough", list(numeric)),
                                 ("categorical", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                                  list(categorical))])
    return encoder.fit_transform(frame)


def standard_library(run: Callable[[], Any]) -> Callable[[], Any]:
    """``run`` with pyarrow hidden: dpcvx's fallback reader."""
    def hidden() -> Any:
        saved = {name: sys.modules.get(name) for name in ("pyarrow", "pyarrow.csv")}
        sys.modules["pyarrow"] = sys.modules["pyarrow.csv"] = None  # type: ignore[assignment]
        try:
            return run()
        finally:
            for name, module in saved.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
    return hidden


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.typed_read", argv)
    import pyarrow.parquet as parquet

    schema = adult_schema()
    columns = (*schema.column_names, LABEL)
    numeric = schema.numeric_names
    categorical = tuple(name for name in schema.column_names if name not in numeric)
    with tempfile.TemporaryDirectory(prefix="dpcvx-typed-read-") as scratch:
        csv_path, parquet_path = write_files(args.rows, Path(scratch))
        ours_csv, X = _best(lambda: schema.transform(read_table_columns(csv_path, columns, label=LABEL,
                                                                        numeric=numeric)), args.repeats)
        reference_csv, reference = _best(lambda: reference_csv_to_x(csv_path, numeric, categorical), args.repeats)
        text_csv, X_text = _best(standard_library(lambda: schema.transform(read_table_columns(
            csv_path, columns, label=LABEL, numeric=numeric))), 1)
        def chunked() -> np.ndarray:
            return np.vstack([schema.transform(chunk) for chunk in table_chunks(
                csv_path, columns, label=LABEL, chunk_rows=args.chunk_rows, numeric=numeric)])

        stream_csv, X_stream = _best(chunked, args.repeats)
        text_stream_csv, X_text_stream = _best(standard_library(chunked), 1)
        ours_parquet, _ = _best(lambda: read_table_columns(parquet_path, columns, label=LABEL, numeric=numeric),
                                args.repeats)
        arrow_parquet, _ = _best(lambda: parquet.read_table(parquet_path, columns=list(columns)), args.repeats)
        ours_parquet_x, X_parquet = _best(lambda: schema.transform(read_table_columns(
            parquet_path, columns, label=LABEL, numeric=numeric)), args.repeats)
        size = csv_path.stat().st_size / 2**20
    assert all(np.array_equal(X, other) for other in (X_text, X_parquet, X_stream, X_text_stream)), \
        "the readers disagree"
    lines = [
        f"# Typed data path: {args.rows:,} rows x {len(columns)} columns (Adult repeated), CSV {size:.0f} MiB",
        "",
        f"X: {X.shape[0]:,} x {X.shape[1]} (dpcvx, PublicSchema adult_schema); reference one-hot: "
        f"{reference.shape[1]} columns. Best of {args.repeats} runs (the standard-library reader: 1 run).",
        "",
        "| measurement | dpcvx (s) | reference (s) | ratio | target |",
        "| --- | --- | --- | --- | --- |",
        f"| CSV to X (pyarrow typed read + scikit-learn one-hot) | {ours_csv:.2f} | {reference_csv:.2f} | "
        f"{ours_csv / reference_csv:.2f} | <= 1.5 |",
        f"| CSV to X, dpcvx's standard-library reader (no pyarrow) | {text_csv:.2f} | {reference_csv:.2f} | "
        f"{text_csv / reference_csv:.2f} | (fallback) |",
        f"| CSV to X by chunks of {args.chunk_rows:,} (--chunk-rows), pyarrow's stream | {stream_csv:.2f} | "
        f"{reference_csv:.2f} | {stream_csv / reference_csv:.2f} | |",
        f"| CSV to X by chunks of {args.chunk_rows:,}, the standard-library reader | {text_stream_csv:.2f} | "
        f"{reference_csv:.2f} | {text_stream_csv / reference_csv:.2f} | (fallback) |",
        f"| Parquet read (pyarrow.parquet.read_table) | {ours_parquet:.2f} | {arrow_parquet:.2f} | "
        f"{ours_parquet / arrow_parquet:.2f} | <= 2 |",
        f"| Parquet to X, dpcvx | {ours_parquet_x:.2f} | | | |",
        "",
        "The five dpcvx paths give identical X.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    name = "typed_read" + (f"_{args.tag}" if args.tag else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{name}.md").write_text(text)
    seconds = {"csv_to_x": ours_csv, "csv_to_x_reference": reference_csv, "csv_to_x_standard_library": text_csv,
               "csv_to_x_chunks_stream": stream_csv, "csv_to_x_chunks_standard_library": text_stream_csv,
               "parquet_read": ours_parquet, "parquet_read_pyarrow": arrow_parquet, "parquet_to_x": ours_parquet_x}
    common.write_json(args.out / f"{name}.json", {"run": record.finish(), "rows": args.rows, "seconds": seconds,
                                                  "csv_ratio": ours_csv / reference_csv,
                                                  "parquet_ratio": ours_parquet / arrow_parquet})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
