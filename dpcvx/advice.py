"""How a message names a setting: by its Python parameter, or by the command line's flag for it.

A warning or a refusal that advises a setting names it through :func:`setting` (a parameter of the Python API, by
its name) or :func:`python_only` (a feature the command line does not offer), never by writing the Python spelling
into its text. Python users see the Python names (``label_bound=(lo, hi)``); while a ``dpcvx`` command runs
(:func:`on_command_line`, entered by :func:`dpcvx.cli.main`) the same message names the flag of ``dpcvx fit`` that
sets it (``--label-bound LO,HI``), from the one table :data:`FLAGS`, or says that the feature is the Python API's
(:data:`PYTHON_ONLY`). ``tests/cli/test_cli_warning_flags.py`` checks every flag of the table against the parser.
A message about the encoded width names the public schema's column that makes most of it (:func:`widest_column`)
while a caller that knows the schema fits (:func:`encoded_columns`: ``dpcvx fit``).

Light: it imports nothing of dpcvx, so that the parser (``dpcvx --help``) can read it.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["FLAGS", "PYTHON_ONLY", "FIXED", "on_command_line", "command_line_runs", "setting", "flag_text", "named",
           "python_only", "for_reader", "encoded_columns", "widest_column", "encoded_column", "named_widths",
           "schema_named", "SMALL_TABLE_LIMIT", "epsilon_share"]

#: An estimator warns :class:`~dpcvx.exceptions.SmallTableWarning` when n epsilon / d is below this (issue 42's
#: boundary, fixed before any table was scored; docs/theory.md, section 32). Here, the lowest layer, because the
#: schema's LevelErasedWarning reads the same rule (:mod:`dpcvx.data.shared_level`).
SMALL_TABLE_LIMIT = 50.0

_COMMAND_LINE: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcvx_command_line", default=False)
#: the public schema's columns and how many encoded columns each makes, while a fit whose caller knows them runs
_COLUMNS: contextvars.ContextVar[tuple[tuple[str, int], ...]] = contextvars.ContextVar("dpcvx_encoded_columns",
                                                                                       default=())

#: Each Python parameter a message names, as ``dpcvx fit`` gives it: its spelling there, ``{}`` standing for the
#: value. One without ``{}`` is a switch: ``True`` is the flag, ``False`` the flag left out (a ``--no-`` flag the
#: other way round).
FLAGS: dict[str, str] = {
    "epsilon": "--epsilon {}",
    "delta": "--delta {}",
    "allow_large_delta": "--allow-large-delta",
    "lam": "--lam {}",
    "data_norm": "--data-norm {}",
    "label_bound": "--label-bound {}",
    "class_weight": "--class-weight {}",
    "class_prior": "--class-prior {}",
    "threshold": "--threshold {}",
    "float_safe": "--float-safe",
    "fit_intercept": "--fit-intercept",
    "column_statistics": "--no-column-statistics",
    "mechanism": "--mechanism {}",
    "loss": "--loss {}",  # a catalogue loss by its spec (a verifier's fix names one: FIXED)
    "m": "--loss huber_regression:m={}",  # DPHuberRegressor's threshold: a parameter of the loss spec
    "allow_estimates": "--allow-estimates",
    "strict": "--strict",  # PrivateERM's (estimated constants), verify's and fit's --strict
    # PublicSchema's strict (not fit's --strict, which is about estimated constants): a key of the schema file
    "schema.strict": '"strict": {} in the --schema file',
}

#: The entries of :data:`FLAGS` whose value sits inside a longer spelling (not a flag followed by its value): their
#: name without a value, and their spelling left out. :func:`setting` takes any other entry's name as the text before
#: its `` {}`` (``--epsilon``), so every entry is spelt without a placeholder ``{}`` (a test renders each).
_INSIDE: dict[str, tuple[str, str]] = {
    "m": ("huber_regression's m", "--loss huber_regression without :m="),  # in --loss's errors ('--loss: ...')
    "schema.strict": ('"strict" in the --schema file', '"strict" left out of the --schema file'),
}

#: Python features a message may advise that the command line does not offer, and what a command-line message says
#: in their place.
PYTHON_ONLY: dict[str, str] = {
    # a loss of the user's own: a callable in Python, a file on the command line (--loss PATH.py)
    "a callable z -> CVXPY expression": "a Python file defining loss(z) with CVXPY (--loss PATH.py)",
    "dpcvx.tune": "dpcvx.tune (in Python only)",
    "tune's score=Mistakes(class_weight=...)": "(in Python) tune's score=Mistakes(class_weight=...)",
    # the fix of a regression loss with an unbounded L (verification.bounded_residual.REGRESSION_FIX)
    "declare constraints=lambda w: [cp.norm(w, 2) <= W]":
        "(in Python only, PrivateERM's constraints=) declare constraints=lambda w: [cp.norm(w, 2) <= W]",
    # DPLogisticRegression's ridge, which the command line fits for the default loss (its estimator's penalty)
    "penalty='l2'": "the default --loss logistic and no --regularizer (the ridge)",
    "use dpcvx.DPLinearRegression (AdaSSP)":
        "leave --loss out for the default regression (dpcvx.DPLinearRegression, AdaSSP: it needs --delta)",
}


#: Python spellings of settings inside fixed texts (a verifier's condition, a release's finding: kept in certificates,
#: whoever reads them), by the parameter and value :func:`setting` renders for :func:`for_reader`.
FIXED: dict[str, tuple[str, str]] = {
    "allow_estimates=True": ("allow_estimates", "True"),
    "strict=True": ("strict", "True"),
    "strict=False": ("strict", "False"),
    "mechanism='output'": ("mechanism", "output"),
    "mechanism='objective'": ("mechanism", "objective"),
    "delta = 0": ("delta", "0"),  # a verifier's fix (use delta = 0, pure epsilon): --delta 0, the default
    # the catalogue losses a verifier's fix names, as --loss gives them
    "dpcvx.losses.logistic()": ("loss", "logistic"),
    "dpcvx.losses.huber_hinge(h=0.5)": ("loss", "huber_hinge:h=0.5"),
    # DPHuberRegressor's m="auto" is B / 4: the command line's huber_regression without :m=
    "dpcvx.losses.huber_regression(m=B / 4)": ("loss", "huber_regression"),
}


@contextmanager
def on_command_line() -> Iterator[None]:
    """Within this block messages name the command line's flags (:func:`dpcvx.cli.main` runs a command inside)."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def command_line_runs() -> bool:
    """Whether a ``dpcvx`` command runs (:func:`on_command_line`)."""
    return _COMMAND_LINE.get()


@contextmanager
def encoded_columns(widths: tuple[tuple[str, int], ...]) -> Iterator[None]:
    """Within this block a message about the encoded width may name the public schema's columns: ``widths`` holds
    each column's name and the number of encoded columns it makes (``dpcvx fit`` fits inside, from its schema)."""
    token = _COLUMNS.set(widths)
    try:
        yield
    finally:
        _COLUMNS.reset(token)


def named_widths(names: Any) -> tuple[tuple[str, int], ...]:
    """The widths :func:`encoded_columns` takes, read off the column names of the X an estimator was given when they
    are a public schema's encoded features (``PublicSchema(...).set_output(transform="pandas")`` in a pipeline:
    "diag=1", "diag=2", ... are the column 'diag', "age:scaled" and "age:missing" the column 'age'), consecutive
    names of one column counted together; () when no name is a category's ("name=category"), so that a pipeline's
    messages name the schema's columns as ``dpcvx fit``'s do (an analyst probe, sixty-fourth session: "group its
    categories" without naming the 400-level column). Public: the names, never the data."""
    if names is None or not any(isinstance(name, str) and "=" in name for name in names):
        return ()
    widths: list[list[Any]] = []
    for name in names:
        text = str(name)
        column = next((text[:-len(suffix)] for suffix in (":scaled", ":missing") if text.endswith(suffix)),
                      text.partition("=")[0])
        if widths and widths[-1][0] == column:
            widths[-1][1] += 1
        else:
            widths.append([column, 1])
    return tuple((column, width) for column, width in widths)


def schema_named() -> bool:
    """Whether :func:`encoded_columns` holds the widths of a schema (the command line's, or read off the names)."""
    return bool(_COLUMNS.get())


def encoded_column(j: int, d: int) -> str | None:
    """The column of :func:`encoded_columns` that makes encoded column ``j`` of d, or None (no schema known, or one
    whose encoded widths do not add up to d). Public: the schema's declarations."""
    widths = _COLUMNS.get()
    if not widths or sum(width for _, width in widths) != d:
        return None
    end = 0
    for name, width in widths:
        end += width
        if j < end:
            return name
    return None


def widest_column(d: int) -> str | None:
    """The column of :func:`encoded_columns` that makes the most of the d encoded columns, as a message names it
    ("'merchant' makes 500 of the 506"), when it makes more than one and at least a quarter of them; else None.
    Public: the schema's declared categories, never the data."""
    widths = _COLUMNS.get()
    if not widths:
        return None
    name, width = max(widths, key=lambda pair: pair[1])
    return f"{name!r} makes {width} of the {d}" if 1 < width <= d and 4 * width >= d else None


def setting(name: str, value: str | None = None, flag_value: str | None = None) -> str:
    """The parameter ``name`` (a key of :data:`FLAGS`), set to ``value`` if given, as the message's reader sets it:
    ``name`` or ``name=value`` in Python; on the command line its flag, with ``flag_value`` (default ``value``):
    ``setting("label_bound", "(lo, hi)", "LO,HI")`` is ``--label-bound LO,HI`` there. A switch's value is
    ``"True"`` (the flag) or ``"False"`` (the flag left out); ``"None"`` is an option left out."""
    spelling = FLAGS[name]
    if not command_line_runs():
        python = name.rpartition(".")[2]
        return python if value is None else f"{python}={value}"
    shown = value if flag_value is None else flag_value
    if "{}" not in spelling:  # a switch
        on = spelling.startswith("--no-") == (shown == "False")
        return spelling if on else f"{spelling} left out"
    if shown is not None and shown != "None":
        return spelling.format(shown)
    if spelling.endswith(" {}"):  # a flag and its value
        return spelling[:-3] if shown is None else f"{spelling[:-3]} left out"
    bare, left_out = _INSIDE[name]
    return bare if shown is None else left_out


def huber_without_search() -> str:
    """DPHuberRegressor fitted without its private column statistics, as the reader fits it:
    ``DPHuberRegressor(column_statistics=False)`` in Python, ``--loss huber_regression --no-column-statistics`` on the
    command line (the notes that name it measured it there: :mod:`dpcvx.models.training_rows`,
    :func:`dpcvx.sklearn.noise_warning.label_unresolved_text`)."""
    return ("--loss huber_regression --no-column-statistics" if command_line_runs()
            else "DPHuberRegressor(column_statistics=False)")


def huber_auto() -> str:
    """DPHuberRegressor's default threshold as the reader sets it: m='auto' in Python, ``--loss huber_regression``
    without ``:m=`` on the command line (the spec takes a number only)."""
    return "--loss huber_regression without :m= (m 'auto')" if command_line_runs() else "m='auto'"


def flag_text(value: Any) -> str:
    """A Python value as the command line writes it: a pair LO,HI, a number as %g, text as it is."""
    if isinstance(value, (tuple, list)):
        return ",".join(flag_text(part) for part in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def named(name: str, value: str | None = None) -> str:
    """:func:`setting` for a parameter of :data:`FLAGS`; any other name (a Python-only parameter, an argument such as
    ``X``) as Python spells it: a check that takes the checked parameter's name names it through this."""
    if name in FLAGS:
        return setting(name, value)
    return name if value is None else f"{name}={value}"


#: how many names a message lists before "and N more"
FEW = 5


def a_few(texts: Sequence[str], limit: int = FEW) -> str:
    """``texts`` (names, already quoted as the message shows them) as a message lists them: the first ``limit``
    joined by commas, then "and N more" for the rest, so that a message about many columns stays short."""
    shown = ", ".join(texts[:limit])
    return shown + (f" and {len(texts) - limit:,} more" if len(texts) > limit else "")


def for_reader(text: str) -> str:
    """A fixed text (a release's finding, a verifier's condition: stated in a certificate, which does not change with
    who reads it) as a warning or refusal shows it: as it is in Python; on the command line each Python spelling of
    :data:`FIXED` it holds as the flag, and each feature of :data:`PYTHON_ONLY` said to be the Python API's."""
    if command_line_runs():
        for spelling, (name, value) in FIXED.items():
            text = text.replace(spelling, setting(name, value))
        for name, instead in PYTHON_ONLY.items():
            if instead not in text:
                text = text.replace(name, instead)
    return text


def python_only(name: str) -> str:
    """The Python feature ``name`` (a key of :data:`PYTHON_ONLY`) as a message names it: itself in Python; on the
    command line, what the table says (that it is the Python API's)."""
    return PYTHON_ONLY[name] if command_line_runs() else name


def epsilon_share(epsilon: float, total_epsilon: float | None, classes: int | None = None) -> str | None:
    """The one phrase, in every warning or refusal that quotes the epsilon a fit's weights were calibrated to
    (``epsilon``), for how it stands to the epsilon the user gave (``total_epsilon``, the release's total): None
    where they are one; else what the part is ("the part of your epsilon = 0.3 that fits the weights; the rest buys
    what the fit draws first ...", or one class's part of one-vs-rest's ``classes`` fits). The warning then names
    the part epsilon', never ``epsilon=...`` as if the user had set it
    (:func:`dpcvx.sklearn.noise_warning.epsilon_quoted`; a refusal of a part: :mod:`dpcvx.privacy.budget_part`).
    Here, the lowest layer, so that the models' refusals and the estimators' warnings say it alike. An analyst probe
    (session 63) read "5000 x 0.11875 / 30" after passing epsilon=1, and another (session 67, P3 finding 4) read
    DPHuberRegressor's NoiseDominatesWarning and SmallTableWarning quote "epsilon=0.15" for an epsilon of 0.3 whose
    other half bought the column and label ranges. Public: the certificate's epsilons."""
    if total_epsilon is None or math.isclose(epsilon, total_epsilon, rel_tol=1e-9, abs_tol=0.0):
        return None
    share = total_epsilon / classes if classes else total_epsilon
    drawn = ("such as a private count of the classes or the columns' ranges, as the certificate's privacy curve "
             "lists")
    given = f"your {setting('epsilon')} = {total_epsilon:g}"
    if classes:  # the share of each fit is quoted only where nothing is drawn first: column ranges are drawn once
        # for all k fits and a private count by each, so "spend epsilon / k each" was wrong where they are (an
        # attacker probe, sixty-eighth session: "4 fits spend 1250 each" of fits spending 1125)
        if math.isclose(epsilon, share, rel_tol=1e-9, abs_tol=0.0):
            return f"one class's part of {given}: one-vs-rest's {classes} fits spend {share:g} each"
        return (f"one class's part of {given}: one-vs-rest's {classes} fits share what is left of it after what is "
                f"drawn first ({drawn})")
    return f"the part of {given} that fits the weights; the rest buys what the fit draws first, {drawn}"
