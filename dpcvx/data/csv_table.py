"""CSV tables for the command line: the named columns of a plain or gzip-compressed file.

UTF-8 (a byte-order mark dropped); surrounding whitespace of each cell is ignored; a header row names
the columns, or :class:`Layout` gives them for a file without one (UCI's files). A gzip file (a .gz
name or gzip's magic bytes) is decompressed as it is read, and damage to it is reported as damage. A
name with a Parquet suffix goes to :mod:`dpcvx.data.parquet`, so one public schema encodes both.
Errors name the file, the line and the column names (public facts), never a cell's value.

Two readers, one result. With pyarrow installed (the ``arrow`` extra), a file is read by pyarrow's CSV
reader, whole (``read_csv``) or, for ``--chunk-rows``, as a stream of record batches (``open_csv``) regrouped
into chunks of ``chunk_rows`` records: the columns named ``numeric`` come as float64 numbers when every cell
is empty or a number by the one grammar of :data:`dpcvx.tables.NUMBER_TEXT` (an empty cell as NaN, which a
schema reads as missing, as it reads the empty text), else as text, every other column as text (never inferred:
a category "01" stays "01"). Without pyarrow, or when pyarrow refuses the file, the standard ``csv`` module
reads it as a stream of
text cells, from the first record pyarrow did not deliver: it gives every error, so both readers fail
alike, and a schema encodes either result to the same rows (tests check both).
"""

from __future__ import annotations

import codecs
import csv
import dataclasses
import gzip
import zlib
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ..exceptions import FileError, InputError
from ..tables import repeated_fields
from .files import file_path, os_error_message
from .parquet import finite, is_parquet, parquet_chunks, typed_column

__all__ = ["Layout", "ROWS_NOTE", "name_list", "read_table_columns", "refuse_csv_layout", "split_names",
           "table_chunks"]


def name_list(names: Sequence[str], limit: int = 20) -> str:
    """A list of column names for a message: the first ``limit`` of them, and how many more."""
    shown = list(names[:limit])
    return f"{shown}" if len(names) <= limit else f"{shown[:-1] + ['...']} ({len(names)} columns)"

def split_names(text: str) -> list[str]:
    """Column names separated by commas or line breaks, surrounding whitespace stripped, empty ones dropped."""
    return [name.strip() for line in text.splitlines() for name in line.split(",") if name.strip()]

GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of every gzip file

@dataclasses.dataclass(frozen=True)
class Layout:
    """How a data file is laid out: its column names (None: the first line is a header row naming
    them) and how many lines to skip before the header or the first record."""

    names: tuple[str, ...] | None = None
    skip_lines: int = 0

    def rows_note(self) -> str:
        """How the row numbers of the command line's messages count, with the line of the file a row is: every message
        that names a data file's row gives it (analyst probe P2, session 68, finding 7: "row 0" was read as the
        header's line). Row r is the r-th record from 0, so line r + 1 + (1 with a header row) + the skipped lines,
        where no blank line (not a row) comes before it. A Parquet file has no lines; its rows count the same way."""
        header = self.names is None
        first = 1 + int(header) + self.skip_lines
        where = "the first line after the header" if header else "the first record"
        skipped = f" (the first {self.skip_lines} line(s) of the file skipped)" if self.skip_lines else ""
        return (f"(data rows count from 0 at the first record: row 0 is {where}{skipped}, line {first} of a CSV file, "
                f"and row r line r + {first} where no blank line comes before it)")



#: How the command line's messages count the rows of a CSV file with a header (:meth:`Layout.rows_note`)
ROWS_NOTE = Layout().rows_note()

def _is_gzip(path: Path) -> bool:
    """A gzip file: a .gz name, or gzip's magic bytes whatever the name."""
    if path.suffix.lower() == ".gz":
        return True
    with path.open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def _open_text(path: Path, compressed: bool) -> TextIO:
    """``path`` as UTF-8 text (a byte-order mark dropped); a gzip file is decompressed as it is read."""
    if compressed:
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    return path.open(newline="", encoding="utf-8-sig")


def _check_gzip(path: Path) -> None:
    """Raise the gzip error of a damaged file, if it is one.

    gzip checks its data only at the end of the stream: before that, damaged data can decode as
    text that looks like a malformed record. A reading error in a gzip file is therefore checked
    against the whole stream, so that damage is reported as damage.
    """
    try:
        with gzip.open(path, "rb") as stream:
            while stream.read(1 << 20):
                pass
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise _gzip_error(path, error) from None
    except OSError:
        pass  # the reading error stands


def _gzip_error(path: Path, error: Exception) -> FileError:
    if isinstance(error, EOFError):
        reason = ("the compressed data end early (a truncated file or an unfinished download); "
                  "download or compress it again")
    elif str(error).startswith("Not a gzipped file"):
        reason = "it does not start like a gzip file; if it is plain text, rename it without .gz"
    else:  # the reader's text can quote the content (a CRC of it): not shown
        reason = "its compressed data are damaged (a checksum, length or stream error); download or compress it again"
    return FileError(f"{path} is not a valid gzip file: {reason}")


_UTF8_BLOCK = 1 << 20  # bytes a block of the UTF-8 check (:func:`_refuse_non_utf8`)


def _refuse_non_utf8(path: Path) -> None:
    """Refuse a CSV file any byte of which is not UTF-8 text, whether its column is read or not, naming the line and
    the byte of that line (from 1): the one rule of the file, decided by no record's position, as pandas reads it
    (and docs/cli.md: a non-UTF-8 file is an input error). pyarrow decodes only the columns it includes, and Python's
    reader of the header the first ~8 KB, so a byte in an unread column was refused near the top of the file and a
    model released when it lay further down (a probe, session 67), and the refusal named an offset in a decoding
    buffer as "byte N of a line". One pass of Python's incremental decoder by blocks, before either reader; a file
    that cannot be opened or decompressed is left to the reader, which reports it (a damaged gzip file as damage)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, lines, line_start = 0, 1, 0  # bytes before the block, the line at its start, where that line starts
    try:
        with (gzip.open(path, "rb") if _is_gzip(path) else path.open("rb")) as stream:
            while True:
                block = stream.read(_UTF8_BLOCK)
                pending = len(decoder.getstate()[0])  # the start of a character the last block cut
                try:
                    decoder.decode(block, final=not block)
                except UnicodeDecodeError as error:
                    at = offset - pending + error.start  # the bad byte's place in the file
                    before = block[:max(at - offset, 0)]
                    newline = before.rfind(b"\n")
                    if newline >= 0:
                        line_start = offset + newline + 1
                    line = lines + before.count(b"\n")
                    raise FileError(f"{path} is not UTF-8 text (line {line}, byte "
                                    f"{at - line_start + 1} of that line, cannot be decoded; every byte is checked, in "
                                    "the columns read or not); convert it, or save the sheet as CSV UTF-8") from None
                if not block:
                    return
                newline = block.rfind(b"\n")
                if newline >= 0:
                    line_start = offset + newline + 1
                lines += block.count(b"\n")
                offset += len(block)
    except (OSError, EOFError, zlib.error):
        return  # the reader reports it


def read_table_columns(path: str | Path, columns: Sequence[str], layout: Layout = Layout(),
                      label: str | None = None, numeric: Collection[str] = ()) -> dict[str, np.ndarray]:
    """The named columns of a CSV (or Parquet: :func:`table_chunks`) file, as arrays of cells with
    surrounding whitespace stripped; with pyarrow, the ``numeric`` columns as float64 numbers (module
    docstring).

    The file may be gzip-compressed (read as a stream). Its columns are named by its header row,
    or by ``layout.names`` for a file without one. ``label`` is the target column, named in the
    error when it is the one missing. Linear in the size of the file: the names are indexed once by
    a dict.
    """
    path = file_path(path, "data file")
    numeric = frozenset(numeric)  # a set: 60,000 columns made a list's membership tests quadratic (98 s)
    if not is_parquet(path):
        _refuse_non_utf8(path)
        typed = _arrow_csv(path, columns, layout, label, numeric)
        if typed is not None:
            return typed
        (table,) = _csv_chunks(path, columns, layout, label)
        return table
    (table,) = table_chunks(path, columns, layout, label, chunk_rows=None, numeric=numeric)
    return table


def table_chunks(path: str | Path, columns: Sequence[str], layout: Layout = Layout(), label: str | None = None,
                  chunk_rows: int | None = None, numeric: Collection[str] = ()) -> Iterator[dict[str, np.ndarray]]:
    """The named columns of a CSV or, by its suffix, Parquet file (its ``numeric`` columns typed,
    :mod:`dpcvx.data.parquet`), by chunks of ``chunk_rows`` records (the module docstring's two readers)."""
    path = file_path(path, "data file")
    numeric = frozenset(numeric)  # a set: 60,000 columns made a list's membership tests quadratic (98 s)
    if not is_parquet(path):
        _refuse_non_utf8(path)
        if chunk_rows is not None:
            return _arrow_csv_chunks(path, columns, layout, label, chunk_rows, numeric)
        return _csv_chunks(path, columns, layout, label, chunk_rows)
    refuse_csv_layout(path, layout != Layout())
    return parquet_chunks(path, columns, label, chunk_rows, numeric)


def refuse_csv_layout(path: str | Path, described: bool) -> None:
    """Refuse a CSV file's layout (``described``: no header row, column names, skipped lines) for a Parquet file,
    known by its suffix, which names its own columns."""
    if described and is_parquet(path):
        raise InputError("--no-header, --names and --skip-lines describe CSV files; a Parquet file names its columns")


def _csv_chunks(path: str | Path, columns: Sequence[str], layout: Layout = Layout(), label: str | None = None,
                chunk_rows: int | None = None, start: int = 0) -> Iterator[dict[str, np.ndarray]]:
    """:func:`read_table_columns` by chunks of ``chunk_rows`` records (None: one chunk), read as a stream by the
    standard library, the first ``start`` records checked but not returned (pyarrow delivered them)."""
    path = Path(path)
    values: dict[str, list[str]] = {name: [] for name in columns}
    seen, record = start, 0  # records: delivered, read
    compressed = False
    try:
        compressed = _is_gzip(path)
        with _open_text(path, compressed) as handle:
            skipped = _skip_lines(handle, layout.skip_lines)
            reader = csv.reader(handle, skipinitialspace=True)
            header, given = _header(reader, path, columns, layout, label, skipped)
            place = {name: j for j, name in reversed(list(enumerate(header)))}  # a name's first place, in one pass
            positions = [place[name] for name in columns]  # (header.index per column: quadratic on a wide file)
            for row in reader:
                if not row or (len(row) == 1 and len(header) > 1 and not row[0].strip()):
                    continue  # blank line
                if len(row) != len(header):
                    line = reader.line_num + layout.skip_lines
                    hint = ""
                    if layout.names is not None and record == 0:  # the first record
                        hint = ("; check --names (one name per column, in file order), or skip a title "
                                "line such as adult.test's with --skip-lines")
                    raise InputError(f"{path}, line {line}: {len(row)} fields, but {given} {len(header)}"
                                     + (" names" if layout.names is not None else "") + hint)
                record += 1
                if record <= start:
                    continue
                for name, index in zip(columns, positions, strict=True):
                    values[name].append(row[index].strip())
                if chunk_rows is not None and len(values[columns[0]]) == chunk_rows:
                    seen += chunk_rows
                    yield {name: np.array(column, dtype=str) for name, column in values.items()}
                    values = {name: [] for name in columns}
    except UnicodeDecodeError:  # checked before reading (_refuse_non_utf8): a file changed since
        if compressed:
            _check_gzip(path)
        _refuse_non_utf8(path)
        raise FileError(f"{path} is not UTF-8 text; convert it, or save the sheet as CSV UTF-8") from None
    except csv.Error as error:
        if compressed:
            _check_gzip(path)
        raise FileError(f"{path} is not a well-formed CSV file: {error}") from None
    except InputError:
        if compressed:
            _check_gzip(path)
        raise
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:  # BadGzipFile is an OSError: first
        raise _gzip_error(path, error) from None
    except OSError as error:
        raise FileError(f"data file {os_error_message(path, error)}") from None
    if not values[columns[0]] and seen == 0:
        raise InputError(f"{path} has a header but no data rows" if layout.names is None else
                         f"{path} has no data rows")
    if values[columns[0]]:
        yield {name: np.array(column, dtype=str) for name, column in values.items()}


def _arrow_csv(path: Path, columns: Sequence[str], layout: Layout, label: str | None,
               numeric: Collection[str]) -> dict[str, np.ndarray] | None:
    """The named columns of a whole CSV file read by pyarrow (module docstring), or None: pyarrow is not
    installed, or it refused the file, which the standard reader then reads (and reports)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as arrow_csv
    except ImportError:
        return None
    for numbers in (numeric, ()):  # the numeric columns as float64, else (a cell that is not one) all as text
        opened = _arrow_open(path, columns, layout, label, numbers)
        if opened is None:
            return None
        source, options = opened
        try:
            with source:  # closes the file
                table = arrow_csv.read_csv(source, **options)
        except (pa.ArrowException, OSError, UnicodeError, EOFError, zlib.error):
            continue  # read as text; refused again, the standard reader reads the file and names what is wrong
        if not table.num_rows:
            return None
        if all(finite(table.column(name)) for name in numbers):  # "nan", "inf" or 1e400: read as text
            return _typed_columns(table, columns, numeric)
    return None


def _arrow_csv_chunks(path: Path, columns: Sequence[str], layout: Layout, label: str | None, chunk_rows: int,
                      numeric: Collection[str]) -> Iterator[dict[str, np.ndarray]]:
    """:func:`table_chunks` of a CSV file streamed by pyarrow's ``open_csv``, its record batches regrouped into
    chunks of ``chunk_rows`` records; from the first record pyarrow refuses (or without pyarrow) the
    standard reader reads on, and reports what is wrong (module docstring)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as arrow_csv
    except ImportError:
        yield from _csv_chunks(path, columns, layout, label, chunk_rows)
        return
    opened = _arrow_open(path, columns, layout, label)
    seen = 0  # the records delivered
    if opened is not None:
        source, options = opened
        try:
            with source, arrow_csv.open_csv(source, **options) as reader:
                for table in _regrouped(reader, chunk_rows):
                    chunk = _typed_columns(table, columns, numeric)
                    if chunk is None:
                        break  # a numeric column that is not plain numbers: read as text from here
                    yield chunk
                    seen += table.num_rows
                else:
                    if seen:
                        return
        except (pa.ArrowException, OSError, UnicodeError, EOFError, zlib.error):
            pass  # the standard reader reads on from the first record not delivered, and names what is wrong
    yield from _csv_chunks(path, columns, layout, label, chunk_rows, start=seen)


def _regrouped(batches: Iterable[Any], rows: int) -> Iterator[Any]:
    """pyarrow record batches (of a reader's block size) regrouped into tables of ``rows`` records, the last
    one the rest."""
    import pyarrow as pa

    pending: list[Any] = []
    count = 0
    for batch in batches:
        pending.append(batch)
        count += batch.num_rows
        while count >= rows:
            table = pa.Table.from_batches(pending)
            yield table.slice(0, rows)
            rest = table.slice(rows)
            pending, count = rest.to_batches(), rest.num_rows
    if count:
        yield pa.Table.from_batches(pending)


def _arrow_open(path: Path, columns: Sequence[str], layout: Layout, label: str | None,
                numbers: Collection[str] = ()) -> tuple[Any, dict[str, Any]] | None:
    """(the byte stream, the read options) for pyarrow's CSV reader of ``path``, the header checked by the
    standard reader's code; None when the header is refused (the standard reader reports it).

    The columns ``numbers`` are read as float64 (a blank cell as missing), every other column as text (never
    inferred: pyarrow's inference reads more than :data:`dpcvx.tables.NUMBER_TEXT`, a hexadecimal "0x10" as the
    integer 16). pyarrow's float64 reads that grammar and "nan", "inf" and "infinity" in any case, which the
    caller reads as text when a column holds one (a non-finite number: :func:`dpcvx.data.parquet.finite`).
    """
    import pyarrow as pa
    import pyarrow.csv as arrow_csv

    try:
        compressed = _is_gzip(path)
        with _open_text(path, compressed) as handle:  # the header: the one check of the names and its errors
            skipped = _skip_lines(handle, layout.skip_lines)
            if skipped < layout.skip_lines:  # the file ends within the skipped lines (any --skip-lines, 10^30
                return None                  # included): the standard reader reports it
            header, _ = _header(csv.reader(handle, skipinitialspace=True), path, columns, layout, label, skipped)
        # opened by Python, which opens any name the system holds: pyarrow's own opening encodes the name as UTF-8,
        # and a directory's byte that is not UTF-8 failed with a bare UnicodeEncodeError (sixty-third session)
        raw = open(path, "rb")  # noqa: SIM115  (a stream the caller closes)
    except (InputError, OSError, UnicodeError, EOFError, zlib.error, csv.Error):
        return None  # the standard reader reads the file and reports it (a damaged gzip file as damage)
    types = {name: pa.float64() if name in numbers else pa.string() for name in columns}
    return pa.input_stream(raw, compression="gzip" if compressed else None), {
        "read_options": arrow_csv.ReadOptions(skip_rows=layout.skip_lines + (layout.names is None),
                                              column_names=header),
        "convert_options": arrow_csv.ConvertOptions(include_columns=list(columns), column_types=types,
                                                    null_values=[""], strings_can_be_null=False,
                                                    quoted_strings_can_be_null=False)}


def _typed_columns(table: Any, columns: Sequence[str], numeric: Collection[str]) -> dict[str, np.ndarray] | None:
    """A pyarrow table's named columns as numpy (:func:`dpcvx.data.parquet.typed_column`, text trimmed), or None
    when one of them cannot be (the standard reader then reads the records as text), or when a text cell begins
    with a double quote once trimmed: a field quoted after the spaces of a ", " separator (UCI's), which pyarrow,
    having no ``skipinitialspace``, kept with its quotes where the standard reader strips them (a quoted category
    was read as an unknown one, and 10% of such cells gave another model without a word)."""
    import pyarrow.compute as pc

    for name in columns:
        column = table.column(name)
        if name not in numeric and column.type == "string" and pc.any(
                pc.starts_with(pc.utf8_ltrim_whitespace(column), '"')).as_py():
            return None
    out = {}
    for name in columns:
        values = typed_column(table.column(name), name in numeric, trim=True)
        if values is None:
            return None
        out[name] = values
    return out


def _skip_lines(handle: Any, count: int) -> int:
    """Read past the first ``count`` lines of the open text file ``handle``: how many it had of them (fewer when the
    file ends first)."""
    for skipped in range(count):
        if not handle.readline():
            return skipped
    return count


def _header(reader: Iterator[list[str]], path: Path, columns: Sequence[str], layout: Layout,
            label: str | None, skipped: int = 0) -> tuple[list[str], str]:
    """(the column names, what gave them) of a CSV file whose reader stands before its header row (or first
    record, with ``layout.names``), after ``skipped`` lines were skipped: the one check of the names, shared by both
    readers."""
    past_end = InputError(f"{path}: --skip-lines {layout.skip_lines} passes the end of the file, which has {skipped} "
                          "line(s); nothing is left to read")
    if skipped < layout.skip_lines:
        raise past_end
    if layout.names is None:
        row = next(reader, None)
        if row is None and layout.skip_lines:  # the file is not empty: the skip read all of it
            raise past_end
        header = [cell.strip() for cell in row or []]
        if not any(header):
            raise InputError(f"{path} is empty; it needs a header row naming the columns (or "
                             "give the names with --no-header --names)")
        given = "the header has"
    else:
        header = list(layout.names)
        given = "--names gives"
    position = {name: index for index, name in enumerate(header)}
    # The header's cells are never shown: without --no-header the first row read as a header may be
    # a record (private). Messages name positions, counts and the names the user gave (public).
    repeats = repeated_fields(header, set(columns))  # the one rule, a Parquet file's too (dpcvx.data.parquet)
    if repeats:
        rename = ("" if layout.names is not None else f": every column needs a name of its own; rename them in the "
                  f"file, or replace the header with --skip-lines {layout.skip_lines + 1} --no-header --names A,B,... "
                  "(every column's name, in file order)")
        raise InputError(f"{path}: the header repeats a column name at field(s) {repeats[:20]}{rename}"
                         f"{_header_hint(layout)}")
    missing = [name for name in columns if name not in position]
    if missing and layout.names is None and header[0].lower().startswith("sep=") and len(header) <= 2:
        # Excel's first line naming the separator ("sep=," reads as the fields "sep=" and ""): not a header
        raise InputError(f"{path}: its first line read as the header is a spreadsheet's separator line ('sep=' and "
                         f"one character), not a header row: skip it with --skip-lines {layout.skip_lines + 1}")
    if missing and len(header) == 1 and len(columns) > 1:  # another separator: every line reads as one field
        convert = ("sep='\\t'" if "\t" in header[0] else "sep=';', decimal=','")  # the header's own separator
        raise InputError(f"{path} reads as a single column, so it has none of the columns {name_list(missing)}: "
                         "dpcvx reads comma-separated values; a file whose fields are separated by semicolons or "
                         "tabs (as some spreadsheets write, with decimal commas) must be converted to commas and "
                         f"decimal points first (pandas: pd.read_csv(path, {convert}).to_csv(new_path, "
                         f"index=False)){_header_hint(layout)}")
    if missing == [label]:
        where = "--names" if layout.names is not None else "its header"
        raise InputError(f"{path} has no label column {label!r} (--target) among the {len(header)} "
                         f"columns named by {where}. Check the spelling (names are case-sensitive)"
                         f"{_header_hint(layout)}")
    if missing:
        raise InputError(f"{path} has no column(s) {name_list(missing)} among its {len(header)} columns. "
                         f"Check the spelling (names are case-sensitive){_header_hint(layout)}")
    return header, given


def _header_hint(layout: Layout) -> str:
    """The fix when a file has no header row (its first record was read as one); no cell is shown."""
    if layout.names is not None:
        return ""
    return ("; the header's cells are not shown (if the file has no header row, its first record was read "
            "as one: pass --no-header with --names)")
