"""Parquet tables for the command line, read by record batches (pyarrow, the ``arrow`` or ``dask`` extra).

``dpcvx fit data.parquet ...`` reads the named columns a batch of ``chunk_rows``
records at a time (or whole). Typed columns: a column the caller names ``numeric``
that Parquet stores as integers or floats comes as float64 (a null as NaN, which a
schema reads as a missing value), and a text column as text (a null as the empty
cell), both converted by whole columns; any other column (a number read as a
category, a date, a boolean) becomes the decimal text of each value, as a CSV file
holds it (a NaN the empty cell, as a null; a binary cell its UTF-8 text, as the Python API reads bytes), so one
public schema encodes both to the same rows. A column's name is matched with surrounding whitespace ignored, and a
read column's name may not repeat, as a CSV header's (:func:`_stored_names`). The file is never
loaded whole when ``--chunk-rows`` is given.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import FileError, InputError, withheld
from ..tables import RowError, bytes_as_text, day_texts, repeated_fields

__all__ = ["PARQUET_SUFFIXES", "finite", "is_parquet", "parquet_chunks", "typed_column"]

PARQUET_SUFFIXES = (".parquet", ".pq")



def is_parquet(path: str | Path) -> bool:
    """Whether ``path`` names a Parquet file (by its suffix)."""
    return Path(path).suffix.lower() in PARQUET_SUFFIXES


def _cells(column: Any, name: str) -> np.ndarray:
    """Each value's text, as a CSV file holds it: a null, or a float NaN (a missing value to pandas, which writes it
    as the empty cell), as the empty cell, never the text "nan", which is not a number (dpcvx.tables.NUMBER_TEXT); a
    binary cell its UTF-8 text, as the Python API reads it (:func:`dpcvx.tables.bytes_as_text`, which refuses one that
    is not UTF-8 by the column ``name`` and its row), never str()'s "b'yes'", which no declared label or category is
    (a binary label column was all negative, released: an attacker probe, sixty-fifth session); a date, or a
    timestamp at midnight without a timezone, its day's ISO text, and a timestamp with a time of day or a timezone
    refused by its row, as the Python API reads them (:func:`dpcvx.tables.day_texts`; ``str()`` wrote a midnight
    timestamp "2020-01-01 00:00:00", the Python API refused its column: session 65)."""
    cells = column.to_pylist()
    values = bytes_as_text(np.fromiter(cells, dtype=object, count=len(cells)), f"column {name!r}")
    values = day_texts(values, what=f"column {name!r}")
    return np.array(["" if value is None or value != value else str(value) for value in values.tolist()], dtype=str)


def typed_column(column: Any, numeric: bool, trim: bool = False) -> np.ndarray | None:
    """A pyarrow column as numpy, by whole columns: float64 (null: NaN) for integers, floats, booleans (0/1), an
    all-null column or text whose every cell is empty or a finite number (:data:`dpcvx.tables.NUMBER_TEXT`) when
    ``numeric``, text (null: the empty cell; surrounding whitespace removed when ``trim``) for a text column; None
    for any other type (its cells are converted value by value, or read again)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if numeric and pa.types.is_null(kind):
        return np.full(len(column), np.nan)
    if numeric and (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)):
        return np.asarray(column.to_numpy(zero_copy_only=False)).astype(np.float64)  # nulls: NaN
    if numeric and pa.types.is_boolean(kind):  # 0/1, as NumericColumn reads a bool array (nulls: NaN); its text
        # "True"/"False" is no number (a Parquet file's flag column declared numeric was refused as one)
        return np.asarray(pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    if _is_text(kind) and numeric:  # numbers written as text (" 7"): parsed after trimming, "" as NaN
        text = pc.utf8_trim_whitespace(pc.fill_null(column, ""))
        try:
            parsed = pc.cast(pc.if_else(pc.equal(text, ""), None, text), pa.float64())
        except pa.ArrowInvalid:  # text that is not a number ("?", "1_000"): read as text
            parsed = None
        if parsed is not None and finite(parsed):
            return np.asarray(parsed.to_numpy(zero_copy_only=False), dtype=np.float64)
        # text that is not a number, or "nan", "inf", 1e400: read as text, whose reading (dpcvx.tables.text_numbers,
        # by the one grammar) names the first such cell
    if _is_text(kind) or (pa.types.is_dictionary(kind) and _is_text(kind.value_type)):
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        parts = [_text(chunk, trim) for chunk in chunks]
        return np.concatenate(parts) if parts else np.array([], dtype=str)
    return None


def finite(numbers: Any) -> bool:
    """Whether every number of a pyarrow float column is finite (a null is a missing value). pyarrow reads text as
    a float by :data:`dpcvx.tables.NUMBER_TEXT` and "nan", "inf", "infinity" in any case, no more (a test checks it):
    a column of text that it reads whole as finite numbers is a column of numbers of the grammar."""
    import pyarrow.compute as pc

    return bool(pc.all(pc.is_finite(numbers), min_count=0).as_py())


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _text(chunk: Any, trim: bool) -> np.ndarray:
    """A pyarrow text array (plain or dictionary-encoded, as Parquet stores a category) as a numpy str array
    through its dictionary: each distinct text is converted once (trimmed when ``trim``), a null is the
    empty cell, and the column is taken from those."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = chunk if pa.types.is_dictionary(chunk.type) else pc.dictionary_encode(chunk)
    dictionary = pc.utf8_trim_whitespace(encoded.dictionary) if trim else encoded.dictionary
    words = np.append(np.asarray(dictionary.to_numpy(zero_copy_only=False), dtype=str), "")
    indices = pc.fill_null(encoded.indices, len(words) - 1)  # a null: the empty cell, the last word
    return words[np.asarray(indices.to_numpy(zero_copy_only=False), dtype=np.intp)]


def _column(column: Any, name: str, numeric: bool, feature: bool) -> np.ndarray:
    """A column as the schema reads it: typed (:func:`typed_column`), else its cells' text; a categorical feature
    stored as floats or decimals is read as floats (null: NaN), as a pandas float column is given to the schema, which
    reads each whole float as the category of its value (3.0 is "3"; the text "3.0" was the all-zero block, and a
    decimal column's text has the scale its every record sets: one Decimal("2.5") made every "3" read "3.0")."""
    import pyarrow as pa

    typed = typed_column(column, numeric or (feature and (pa.types.is_floating(column.type)
                                                          or pa.types.is_decimal(column.type))))
    return _cells(column, name) if typed is None else typed


def parquet_chunks(path: str | Path, columns: Sequence[str], label: str | None = None,
                   chunk_rows: int | None = None, numeric: Collection[str] = ()) -> Iterator[dict[str, np.ndarray]]:
    """The named columns of a Parquet file, the ``numeric`` ones typed (module docstring), by batches of
    ``chunk_rows`` (None: whole)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("reading a Parquet file needs pyarrow: pip install 'dpcvx[arrow]'") from None
    try:  # opened by Python, which opens any name the system holds: pyarrow's own opening encodes the name as
        # UTF-8, and a directory's byte that is not UTF-8 failed with a bare UnicodeEncodeError (sixty-third session)
        raw = open(path, "rb")  # noqa: SIM115  (closed by the with below, which spans every read of the generator)
    except FileNotFoundError:
        raise FileError(f"{path} does not exist") from None
    except OSError as error:
        raise FileError(f"{path} is not a readable Parquet file: {withheld(error)}") from None
    with raw:
        try:
            handle = pq.ParquetFile(raw)
            # the names first (an InputError passes), then the text columns by their stored names
            stored = _stored_names(path, list(handle.schema_arrow.names), columns, label)
            text = [field for name, field in zip(columns, stored, strict=True)
                    if name not in numeric and _is_text(handle.schema_arrow.field(field).type)]
            if text:  # read as stored: a category's dictionary, converted once (typed_column)
                handle = pq.ParquetFile(raw, read_dictionary=text)
        except (OSError, pa.ArrowException) as error:
            raise FileError(f"{path} is not a readable Parquet file: {withheld(error)}") from None
        if handle.metadata.num_rows == 0:  # as a CSV file of a header alone (csv_table): one rule for an empty table
            raise InputError(f"{path} has columns but no data rows")
        try:
            if chunk_rows is None:
                table = handle.read(columns=stored)
                yield _columns(table, columns, stored, label, numeric, path, 0)
                return
            rows = 0
            for batch in handle.iter_batches(batch_size=chunk_rows, columns=stored):
                yield _columns(batch, columns, stored, label, numeric, path, rows)
                rows += batch.num_rows
        except (OSError, pa.ArrowException) as error:
            raise FileError(f"{path}: reading the Parquet data failed with {withheld(error)}") from None


def _stored_names(path: str | Path, names: list[str], columns: Sequence[str], label: str | None) -> list[str]:
    """The file's own name of each of the ``columns``, matched as a CSV header's cells are, surrounding whitespace
    ignored (a column " age" is the column age, as in a CSV header; it was "no column 'age'": a probe, session 67).
    Refused: a file whose columns so read repeat the name of one that is read (:func:`dpcvx.tables.repeated_fields`,
    the rule of a CSV header too: the columns not read may repeat theirs), or lack one, before a column is looked up
    by its name (pyarrow's lookup of a repeated name raised a bare KeyError, exit 1: the same probe)."""
    trimmed = [name.strip() for name in names]
    repeats = repeated_fields(trimmed, set(columns))
    if repeats:
        raise InputError(f"{path}: its columns repeat a column name at field(s) {repeats[:20]} (surrounding spaces "
                         "ignored): every column that is read needs a name of its own; rename them first (pyarrow: "
                         "table.rename_columns([...]) before pyarrow.parquet.write_table)")
    place = {name: index for index, name in enumerate(trimmed)}
    missing = [name for name in columns if name not in place]
    if missing:
        which = "label column" if missing == [label] else "column(s)"
        raise InputError(f"{path} has no {which} {missing}; its columns are {names}. Check the spelling "
                         "(names are case-sensitive)")
    return [names[place[name]] for name in columns]


def _columns(table: Any, columns: Sequence[str], stored: Sequence[str], label: str | None, numeric: Collection[str],
             path: str | Path, start: int) -> dict[str, np.ndarray]:
    """The named columns of a pyarrow Table or RecordBatch (``stored``: their names in the file, :func:`_stored_names`)
    whose first row is row ``start`` of the file: a refusal of
    one cell (:func:`_cells`) names its row in the whole file."""
    try:
        return {name: _column(table.column(field), name, name in numeric, name != label)
                for name, field in zip(columns, stored, strict=True)}
    except RowError as error:
        raise error.shifted(start, f"{path}: ") from None
