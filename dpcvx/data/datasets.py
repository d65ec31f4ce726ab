"""Loaders of UCI Adult and KDD Cup 99 (10%) as in Chaudhuri, Monteleoni, Sarwate (JMLR 2011), Sec. 7.

Two modes; ``mode="private"`` is the default:

- ``mode="private"`` (default): :func:`dpcvx.data.uci_domains.adult_schema` / ``kdd_schema``,
  public bounds and category lists only. **Every record is kept**: a missing
  value (``?``) is a category of its own in a categorical column and is
  imputed with the public lower bound in a numeric column, so the row count
  n (and with it the noise scale), the feature layout and every other
  public quantity are the same whichever values are missing. Each row
  depends on its own record alone, so the rows can go straight into an
  eps-DP learner with R = norm.
- ``mode="paper"``, an explicit choice: the published preprocessing, **NOT private**
  (``Dataset.private`` is False; loading warns :class:`~dpcvx.exceptions.PaperModeWarning`
  and ``Dataset.description`` says it). It reads the data: records with a missing
  value are DROPPED (so n depends on the data), each numeric column is
  divided by its maximum over the data and the one-hot categories are the
  ones present in the data (:func:`paper_schema`). That is what the paper
  did; the row count, the maxima and the category set are statistics of the
  private data. Use it to reproduce the published numbers, and report the
  private mode next to it.

Paper mode then scales each row to x / max(1, ||x|| / norm) (``encoding="unit"``). The paper says
"each row scaled to norm <= 1"; its experiment section is not among the
project's reference texts, so whether it divided every row by its own norm or
all rows by the largest norm could not be checked. dpcvx scales each row on
its own: a per-record map. With the one-hot blocks every row has norm above 1
before this step, so in practice every row ends with norm exactly 1
(numerically <= 1). Private mode uses the schema's default ``encoding="centred"``
(numeric columns centred on their public midpoints, every row multiplied by the
same public constant norm / domain_norm, a linear map that clips no row);
``encoding="unit"`` gives the paper's per-row map there too.

Files: adult.data, adult.test and kddcup.data_10_percent, each plain or
gzip-compressed (``.gz``). They are looked for in ``path``, else in
``$DPCVX_DATA``, else in ``../shared/data`` relative to the current directory
and relative to the repository root. Nothing is downloaded or cached unless
you call :func:`download`.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import urllib.request
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import FileError, InputError, PaperModeWarning, user_stacklevel, withheld
from ..privacy.rng import RandomState, resolve_rng
from ..validation import check_choice, integer
from .files import atomic_write, check_writable, file_path
from .preprocessing import PublicSchema, paper_schema
from .uci_domains import ADULT_COLUMNS, KDD_CATEGORIES, KDD_COLUMNS, KDD_DOS_ATTACKS, adult_schema, kdd_schema

__all__ = ["Dataset", "load_adult", "load_kdd", "read_records", "find_data_directory", "download", "DATA_ENV"]

DATA_ENV = "DPCVX_DATA"
ADULT_FILES = ("adult.data", "adult.test")
KDD_FILE = "kddcup.data_10_percent"
MODES = ("paper", "private")
REPOSITORY_ROOT = Path(__file__).resolve().parents[2]

# Original files and the sha256 of their UNCOMPRESSED bytes (SOURCES.md of the project data).
DOWNLOADS = {
    "adult.data": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data",
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    ),
    "adult.test": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test",
        "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    ),
    "kddcup.data_10_percent.gz": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/kddcup99-mld/kddcup.data_10_percent.gz",
        "f8c8267ebcd9c0ed1fd7d6277fe5bfff8732e9b7db8e61b873542b2a534b6f9a",
    ),
}


@dataclass(frozen=True, eq=False)  # compared by identity: elementwise array equality has no truth value
class Dataset:
    """A loaded data set: rows X (float64, ||x_i|| <= schema.norm), labels y in {-1, +1}.

    ``record_index[i]`` is the position of row i among the file's records
    (Adult: adult.data then adult.test, header and blank lines not counted).
    ``schema`` reproduces the rows from raw records: ``schema.transform``.

    Returned by :func:`load_adult` and :func:`load_kdd`, not built by users; its fields' kinds and shapes are still
    checked at construction (an InputError naming the field; the entries are not read): X a 2-D array, y and
    ``record_index`` 1-D arrays of one entry a row, ``feature_names`` a tuple of one str a column, ``schema`` a
    PublicSchema, ``mode`` "paper" or "private", ``description`` a str.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    schema: PublicSchema
    mode: str
    record_index: np.ndarray
    description: str

    def __post_init__(self) -> None:
        if not (isinstance(self.X, np.ndarray) and self.X.ndim == 2):
            raise InputError(f"X must be a 2-D numpy array, got {type(self.X).__name__}")
        rows, columns = self.X.shape
        for name in ("y", "record_index"):
            values = getattr(self, name)
            if not (isinstance(values, np.ndarray) and values.shape == (rows,)):
                raise InputError(f"{name} must be a 1-D numpy array of one entry a row of X ({rows}), got "
                                 f"{type(values).__name__} of shape {getattr(values, 'shape', None)}")
        if not (isinstance(self.feature_names, tuple) and len(self.feature_names) == columns
                and all(isinstance(name, str) for name in self.feature_names)):
            raise InputError(f"feature_names must be a tuple of {columns} str, one a column of X")
        if not isinstance(self.schema, PublicSchema):
            raise InputError(f"schema must be a dpcvx.PublicSchema, got {type(self.schema).__name__}")
        check_choice("mode", self.mode, MODES)
        if not isinstance(self.description, str):
            raise InputError(f"description must be a str, got {type(self.description).__name__}")

    @property
    def private(self) -> bool:
        """True in private mode: nothing (row count, bounds, categories) was read off the data."""
        return self.mode == "private"


def find_data_directory(files: tuple[str, ...], path: str | Path | None = None) -> Path:
    """The first directory holding every file in ``files`` (each plain or ``.gz``).

    Looked for, in order: ``path`` if given (then nowhere else); else
    ``$DPCVX_DATA``; ``../shared/data`` from the current directory; and
    ``../shared/data`` from the repository root.
    """
    if path is not None:
        candidates = [file_path(path, "data directory")]
        if candidates[0].is_file():
            raise FileError(f"{path} is a file, not a directory; give the directory that holds {list(files)}")
    else:
        from_env = [Path(os.environ[DATA_ENV])] if os.environ.get(DATA_ENV) else []
        beside = [Path.cwd() / ".." / "shared" / "data", REPOSITORY_ROOT / ".." / "shared" / "data"]
        candidates = from_env + beside
    for directory in candidates:
        if all(_file_in(directory, name) is not None for name in files):
            return directory
    looked = "\n".join(f"  - {d.resolve()}" for d in candidates)
    raise FileError(
        f"data files {list(files)} (plain or .gz) not found; looked in:\n{looked}\n"
        f"Pass path=..., set {DATA_ENV}, place the files in ../shared/data, or fetch the "
        "originals with dpcvx.data.datasets.download(directory) (needs internet)."
    )


def load_adult(
    path: str | Path | None = None,
    mode: str = "private",
    constant_feature: bool = True,
    norm: float = 1.0,
    encoding: str = "centred",
) -> Dataset:
    """UCI Adult: adult.data + adult.test, +1 for income >50K; private mode keeps every record.

    The test file's first line (``|1x3 Cross validator``) and the trailing
    dots of its labels are stripped.

    ``mode="private"`` (the default) uses public bounds and categories only;
    ``mode="paper"`` must be asked for: it reads each numeric column's
    maximum and minimum, the set of categories present, and which records
    have a missing value (dropping them) off the data, warns
    :class:`~dpcvx.exceptions.PaperModeWarning` and says so in the
    description. A schema saved from it carries those data statistics.

    ``encoding`` (private mode): :class:`PublicSchema`'s ``encoding``, ``"centred"`` (the default: numeric
    columns centred on their public midpoints, the table scaled by one public constant) or ``"unit"``
    (dpcvx before issue 42: columns in [0, 1], each row divided by max(1, ||x|| / norm)). Paper mode
    always uses ``"unit"``, the paper's map.

    - private mode: all 48,842 records (32,561 + 16,281), of which 11,687
      are >50K; ``?`` is the category ``column=?`` of its own (imputed with
      the public lower bound in a numeric column), so n does not depend on
      which values are missing;
    - paper mode (NOT private): a record with ``?`` anywhere is dropped:
      48,842 - 3,620 = 45,222 records (30,162 + 15,060), of which 11,208 are
      >50K. The paper reports 45,220; the two extra records here could not be
      traced (no duplicate-free or other rule found that removes exactly two).

    d, with the default constant feature:
    - paper mode: 98 one-hot features for the categories present after the
      drop (8 workclass values in adult.names minus Never-worked, whose
      records all miss the occupation; 16 + 7 + 14 + 6 + 5 + 2 + 41 for the
      other columns) + 6 numeric + 1 constant = 105, the paper's d;
    - private mode: the 99 categories listed in adult.names + 8 missing-value
      categories (one per categorical column) + 6 + 1 = 114.
    Without the constant: 104 and 113. Whether the paper appended a constant
    could not be checked (its experiment text is not among the project's
    references). The other reading that gives 105 for Adult, all 99 listed
    categories + 6 numeric without a constant, has no counterpart giving
    KDD's 119; "categories present + numeric + constant" gives both 105 and
    119 (see load_kdd), so the loaders follow it.
    """
    _check_mode(mode, "each numeric column's minimum and maximum, the categories present and which "
                "records have a missing value (those records are dropped)")
    public = replace(adult_schema(constant_feature, norm), encoding=encoding)  # the options checked before any file
    directory = find_data_directory(ADULT_FILES, path)
    records = np.array([fields for name in ADULT_FILES for fields in _adult_records(directory, name)])
    if mode == "private":  # every record: n is the public count of records in the files
        kept = np.arange(len(records))
        which = f"all {len(kept)} records (a missing value '?' is a category of its own)"
    else:  # NOT private: which records survive depends on the data
        kept = np.flatnonzero(~(records == "?").any(axis=1))
        records = records[kept]
        which = f"{len(kept)} records without missing values (the others DROPPED: NOT private)"
    labels = np.char.rstrip(records[:, -1], ".")
    unknown = ~np.isin(labels, (">50K", "<=50K"))
    if unknown.any():
        raise InputError(
            f"Adult labels must be >50K or <=50K; {int(unknown.sum())} record(s) hold another label, the first "
            f"is record {int(kept[np.flatnonzero(unknown)[0]])} (values not shown: they are data); a record's "
            "label is never guessed or dropped: fix the file"
        )
    table = {name: records[:, j] for j, name in enumerate(ADULT_COLUMNS)}
    schema = _schema_for(mode, public, table)
    description = (
        f"UCI Adult (adult.data + adult.test), {which}, "
        f"d = {schema.dimension}, y = +1 for income >50K. {_MODE_NOTE[mode]}"
    )
    return _dataset(schema, table, np.where(labels == ">50K", 1.0, -1.0), mode, kept, description)


def load_kdd(
    path: str | Path | None = None,
    mode: str = "private",
    n_rows: int | None = 70_000,
    random_state: RandomState = None,
    constant_feature: bool = True,
    norm: float = 1.0,
    numeric_scale: str = "log",
    encoding: str = "centred",
) -> Dataset:
    """KDD Cup 99, 10% file: denial-of-service attack (+1) versus anything else (-1).

    DoS labels: back, land, neptune, pod, smurf, teardrop (391,458 of the
    494,021 records). ``mode="private"`` (the default) uses public bounds and
    categories only; ``mode="paper"`` must be asked for: it reads each numeric
    column's maximum and minimum and the set of categories present off the
    whole file, warns :class:`~dpcvx.exceptions.PaperModeWarning` and says so
    in the description. ``n_rows`` records are drawn without replacement, in
    random order, with ``resolve_rng(random_state)`` (None: fresh OS entropy;
    pass an int to reproduce a subset); ``n_rows=None`` keeps all 494,021
    records in file order.

    d, with the default constant feature:
    - paper mode: the categories present in the WHOLE 10% file (3 protocols,
      66 services, 11 flags: 80) + 38 numeric + 1 constant = 119, the paper's
      d. Maxima and categories are read from all 494,021 records before the
      subset is drawn, so d does not depend on the subset (a 70,000-record
      subset alone holds only about 62 services);
    - private mode: 3 + 70 + 11 = 84 public categories + 3 missing-value
      categories (``?``) + 38 + 1 = 126.
    Without the constant: 118 and 125.

    ``numeric_scale`` (private mode): ``"log"`` (the default) scales the
    heavy-tailed counts, sizes and duration logarithmically within their
    public bounds, ``"linear"`` linearly (dpcvx before 2026-11-24); see
    :func:`dpcvx.data.uci_domains.kdd_schema`. Paper mode always scales each
    column linearly by its maximum over the data, as the paper did. ``encoding``: as in
    :func:`load_adult`.

    No record is ever dropped, in either mode (the 10% file has no missing
    value; in private mode a ``?`` would be the category ``column=?``, or the
    public lower bound of a numeric column). A value outside the public
    category lists gives the all-zero block of its column.
    """
    _check_mode(mode, "each numeric column's minimum and maximum and the categories present in the whole file")
    n_rows = None if n_rows is None else integer("n_rows", n_rows)  # None: the whole file
    public = replace(kdd_schema(constant_feature, norm, numeric_scale=numeric_scale), encoding=encoding)
    rng = None if n_rows is None else resolve_rng(random_state)  # the options checked before any file is read
    directory = find_data_directory((KDD_FILE,), path)
    distinct, record_to_distinct = _kdd_records(directory)
    n_records = len(record_to_distinct)
    if n_rows is None:
        chosen = np.arange(n_records)
    elif n_rows > n_records:
        raise InputError(f"n_rows={n_rows} exceeds the {n_records} records of {KDD_FILE}")
    else:
        assert rng is not None
        chosen = rng.permutation(n_records)[:n_rows]
    # The distinct records hold the same maxima and categories as all records.
    distinct_table = {name: distinct[name] for name in KDD_COLUMNS}
    schema = _schema_for(mode, public, distinct_table)
    rows = record_to_distinct[chosen]
    attack = np.char.rstrip(distinct["label"][rows], ".")
    y = np.where(np.isin(attack, KDD_DOS_ATTACKS), 1.0, -1.0)
    description = (
        f"KDD Cup 99 10% file, {len(chosen)} of {n_records} records, d = {schema.dimension}, "
        f"y = +1 for a DoS attack ({', '.join(KDD_DOS_ATTACKS)}). {_MODE_NOTE[mode]}"
    )
    table = {name: distinct[name][rows] for name in KDD_COLUMNS}
    return _dataset(schema, table, y, mode, chosen, description)


def read_records(name: str, path: str | Path | None = None,
                 columns: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """The raw fields of every record of a UCI file, by column, for an encoding of your own.

    ``name`` is "adult" (adult.data then adult.test, the order of
    :attr:`Dataset.record_index` of :func:`load_adult`) or "kdd" (the 10% file in
    file order, that of :func:`load_kdd`). Each column, and "label", holds one
    entry per record: Adult's as text (whitespace stripped; adult.test's labels
    keep their trailing dot), KDD's numeric columns as floats (text if a field is
    ``?``) and its text columns cut to 16 characters. ``columns`` keeps some
    columns only (KDD's full table takes about 300 MB). Nothing is encoded, dropped
    or read off the data beyond the fields themselves: what you then compute from
    them (a schema, a split by label) is yours to keep public or private.
    """
    if name == "adult":
        directory = find_data_directory(ADULT_FILES, path)
        records = np.array([fields for file in ADULT_FILES for fields in _adult_records(directory, file)])
        return {column: records[:, j] for j, column in enumerate((*ADULT_COLUMNS, "label"))
                if columns is None or column in columns}
    if name == "kdd":
        distinct, record_to_distinct = _kdd_records(find_data_directory((KDD_FILE,), path))
        return {column: distinct[column][record_to_distinct] for column in (*KDD_COLUMNS, "label")
                if columns is None or column in columns}
    raise InputError(f"name must be 'adult' or 'kdd', got {name!r}")


def _write_bytes(content: bytes, handle: Any) -> None:
    """The fetched bytes, into the writer's handle (:func:`download`)."""
    handle.write(content)


def download(directory: str | Path, overwrite: bool = False) -> Path:
    """Fetch the original Adult and KDD 10% files from UCI into ``directory`` (needs internet).

    Each file is checked against the sha256 of its uncompressed bytes before
    it is written; a mismatch raises :class:`InputError` and writes nothing.
    Existing files are kept (and not fetched) unless ``overwrite``. Each file is written by dpcvx's one writer
    (:func:`~dpcvx.data.files.atomic_write`, a temporary file of its own beside it: no other file in the directory is
    touched), and a target it cannot write (a directory of that name, a read-only file) is refused before anything
    is fetched (:func:`~dpcvx.data.files.check_writable`); a file that appears under a target's name while it is
    fetched is kept, without ``overwrite``, with an :class:`~dpcvx.exceptions.OverwriteError`. dpcvx never calls this
    itself.
    """
    directory = file_path(directory, "download directory")
    directory.mkdir(parents=True, exist_ok=True)
    wanted = {name: source for name, source in DOWNLOADS.items() if overwrite or not (directory / name).is_file()}
    for name in wanted:  # every target checked before anything is fetched
        check_writable(directory / name, f"data file {name}", overwrite=overwrite)
    for name, (url, expected_sha256) in wanted.items():
        target = directory / name
        with urllib.request.urlopen(url, timeout=120) as response:
            content = response.read()
        plain = gzip.decompress(content) if name.endswith(".gz") else content
        digest = hashlib.sha256(plain).hexdigest()
        if digest != expected_sha256:
            raise InputError(
                f"{url}: sha256 {digest} differs from the published {expected_sha256}; nothing written"
            )
        atomic_write(target, functools.partial(_write_bytes, content), binary=True, what=f"data file {name}",
                     overwrite=overwrite)
    return directory


_MODE_NOTE = {
    "paper": (
        "Paper mode, NOT PRIVATE: column maxima and categories were READ FROM THE DATA (and any "
        "record with a missing value dropped); then each row was scaled to norm <= the bound."
    ),
    "private": (
        "Private mode: every record kept, public bounds and categories only ('?' is a category "
        "of its own); each row depends on its own record alone."
    ),
}


def _check_mode(mode: str, reads: str) -> None:
    """Refuse an unknown mode; warn that paper mode reads ``reads`` off the data (stack: the caller's line)."""
    check_choice("mode", mode, tuple(MODES))
    if mode == "paper":
        warnings.warn(
            f"mode='paper' is NOT private: it reads {reads} off the data. A model or schema built on "
            "these rows carries those statistics; use mode='private' (the default) for a release",
            PaperModeWarning, stacklevel=user_stacklevel())


def _schema_for(mode: str, public: PublicSchema, full_table: dict[str, np.ndarray]) -> PublicSchema:
    """Paper mode: :func:`paper_schema` (its encoding is always the paper's "unit"); private mode: the public
    schema (made with the loader's ``encoding`` before any file was read, so that every option is checked first)."""
    return paper_schema(public, full_table) if mode == "paper" else public


def _dataset(
    schema: PublicSchema, table: dict[str, Any], y: np.ndarray, mode: str, record_index: np.ndarray, description: str
) -> Dataset:
    return Dataset(
        X=schema.transform(table),
        y=y,
        feature_names=schema.feature_names,
        schema=schema,
        mode=mode,
        record_index=record_index,
        description=description,
    )


def _file_in(directory: Path, name: str) -> Path | None:
    for candidate in (directory / name, directory / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


def _read_text(directory: Path, name: str) -> str:
    file = _file_in(directory, name)
    if file is None:
        raise InputError(f"{name} (plain or .gz) not found in {directory}")
    content = file.read_bytes()
    try:
        return (gzip.decompress(content) if file.suffix == ".gz" else content).decode("ascii")
    except UnicodeDecodeError as error:  # its text quotes the byte: data
        raise InputError(f"{file} is not the plain-text (or gzipped) UCI file: byte {error.start} is not "
                         "ASCII") from None
    except OSError as error:  # gzip's text quotes the first bytes or a checksum of the content
        raise InputError(f"{file} is not the plain-text (or gzipped) UCI file: reading it raised "
                         f"{withheld(error)}") from None


def _adult_records(directory: Path, name: str) -> list[list[str]]:
    """Fields of each record; skips blank lines and adult.test's '|1x3 Cross validator' line."""
    records = []
    for line_number, line in enumerate(_read_text(directory, name).splitlines(), start=1):
        if not line.strip() or line.startswith("|"):
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != len(ADULT_COLUMNS) + 1:
            raise InputError(
                f"{name}, line {line_number}: {len(fields)} fields, expected {len(ADULT_COLUMNS) + 1}"
            )
        records.append(fields)
    if not records:
        raise InputError(f"{name} in {directory} holds no records")
    return records


def _kdd_records(directory: Path) -> tuple[np.ndarray, np.ndarray]:
    """The distinct records (structured array) and, for each record of the file, its distinct record.

    The 10% file repeats records heavily (145,586 distinct lines among
    494,021), so each distinct line is parsed once: about twice as fast.
    Text fields are read as 16 characters: enough for every service, flag
    and label of the task; a longer unknown value is cut but stays unknown.
    If a field is ``?`` (a missing value; the 10% file has none) the numeric
    columns are read as text too, and the schema imputes them.
    """
    lines = _read_text(directory, KDD_FILE).splitlines()
    first_seen: dict[str, int] = {}
    record_to_distinct = np.fromiter(
        (first_seen.setdefault(line, len(first_seen)) for line in lines if line), dtype=np.intp
    )
    if not first_seen:
        raise InputError(f"{KDD_FILE} in {directory} holds no records")
    missing = any("?" in line for line in first_seen)
    numeric = "U32" if missing else "f8"
    dtype = [(name, "U16" if name in KDD_CATEGORIES else numeric) for name in KDD_COLUMNS] + [("label", "U16")]
    try:
        distinct = np.loadtxt(first_seen, delimiter=",", dtype=dtype, ndmin=1)
    except ValueError:  # numpy's message quotes the offending field: data, never shown
        raise InputError(f"{KDD_FILE} in {directory} is malformed: a line has the wrong number of fields or a "
                         "numeric field that is not a number (the field is not shown: it is data)") from None
    return distinct, record_to_distinct
