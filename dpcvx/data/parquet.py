"""Parquet tables for the command line, read by record batches (pyarrow, from the dask extra).

``dpcvx fit data.parquet ...`` reads the named columns a batch of ``chunk_rows``
records at a time (or whole), as text cells like a CSV file's, so one public schema
encodes both: numbers become their decimal text, nulls the empty cell (which the
schema treats as a missing value). The file is never loaded whole when
``--chunk-rows`` is given.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import FileError, InputError, withheld

__all__ = ["PARQUET_SUFFIXES", "is_parquet", "parquet_chunks"]

PARQUET_SUFFIXES = (".parquet", ".pq")


def is_parquet(path: str | Path) -> bool:
    """Whether ``path`` names a Parquet file (by its suffix)."""
    return Path(path).suffix.lower() in PARQUET_SUFFIXES


def _cells(column: Any) -> np.ndarray:
    return np.array(["" if value is None else str(value) for value in column.to_pylist()], dtype=str)


def parquet_chunks(path: str | Path, columns: Sequence[str], label: str | None = None,
                   chunk_rows: int | None = None) -> Iterator[dict[str, np.ndarray]]:
    """The named columns of a Parquet file as text cells, by batches of ``chunk_rows`` (None: whole)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("reading a Parquet file needs pyarrow: pip install 'dpcvx[dask]'") from None
    try:
        handle = pq.ParquetFile(path)
    except FileNotFoundError:
        raise FileError(f"{path} does not exist") from None
    except (OSError, pa.ArrowException) as error:
        raise FileError(f"{path} is not a readable Parquet file: {error}") from None
    names = list(handle.schema_arrow.names)
    missing = [name for name in columns if name not in names]
    if missing:
        which = "label column" if missing == [label] else "column(s)"
        raise InputError(f"{path} has no {which} {missing}; its columns are {names}. Check the spelling "
                         "(names are case-sensitive)")
    try:
        if chunk_rows is None:
            table = handle.read(columns=list(columns))
            yield {name: _cells(table.column(name)) for name in columns}
            return
        for batch in handle.iter_batches(batch_size=chunk_rows, columns=list(columns)):
            yield {name: _cells(batch.column(name)) for name in columns}
    except (OSError, pa.ArrowException) as error:
        raise FileError(f"{path}: reading the Parquet data failed with {withheld(error)}") from None
