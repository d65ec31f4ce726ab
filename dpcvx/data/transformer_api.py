"""scikit-learn's transformer API for dpcvx's public transformers, :class:`~dpcvx.PublicSchema` and
:class:`~dpcvx.RandomFourierFeatures`, without importing scikit-learn until it asks: the output container and the
tags.

``set_output(transform=...)`` chooses what ``transform`` returns: "default" (a numpy array), "pandas" or "polars"
(a DataFrame whose columns are ``get_feature_names_out()``); None keeps the current choice. The choice is kept in
the attribute ``_sklearn_output_config`` under the key "transform", the name and shape scikit-learn's ``clone``
copies to a clone (a pipeline's ``set_output`` survives ``cross_val_score`` and a grid search). It is never part of
a transformer's parameters or of a saved file.

The default container, a numpy array, has no column names, so an estimator after the transformer in a pipeline
(``make_pipeline(PublicSchema(...), estimator)``, the documented pipeline) named its columns by position in its
warnings ("column 0"; analyst probe P2, session 68, finding 5). scikit-learn's Pipeline passes the transformer's
output itself to the next step's fit, so :func:`contained` remembers each array it returns with the names of its
columns, for as long as the array lives (a weak reference), and :func:`output_names` gives them for that very
object: the estimator's notes name the schema's features ("stay_days:scaled") whenever the schema is the step
before it. A copy, or a step between them, has no names (positions, as before). The names are the transformer's
public output names, never data.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from .. import tables
from ..validation import check_choice

__all__ = ["OUTPUTS", "set_output", "contained", "output_names", "transformer_tags"]

OUTPUTS = ("default", "pandas", "polars")  # what set_output offers, as in scikit-learn
CONFIG = "_sklearn_output_config"  # the attribute scikit-learn's clone copies
#: the arrays :func:`contained` returned that are still alive, by id: a weak reference to each and its column names
_NAMED: dict[int, tuple[weakref.ref[np.ndarray], tuple[str, ...]]] = {}


def _remember(rows: np.ndarray, names: Any) -> None:
    """Keep ``names`` for the array ``rows`` while it lives (:func:`output_names`)."""
    key = id(rows)

    def forget(reference: weakref.ref[np.ndarray]) -> None:
        if _NAMED.get(key, (None,))[0] is reference:  # not a later array given the same id
            _NAMED.pop(key, None)

    _NAMED[key] = (weakref.ref(rows, forget), tuple(str(name) for name in names))


def output_names(X: Any) -> tuple[str, ...] | None:
    """The column names of ``X`` when it is an array a transformer's :func:`contained` returned (the very object,
    alive), else None. Public: the transformer's declared output names."""
    entry = _NAMED.get(id(X))
    if entry is None or entry[0]() is not X:
        return None
    return entry[1]


def set_output(transformer: Any, transform: str | None) -> None:
    """Record ``transform`` (checked; None keeps the current choice) as ``transformer``'s output container."""
    if transform is not None:
        choice = check_choice("set_output(transform=...)", transform, OUTPUTS)
        object.__setattr__(transformer, CONFIG, {**getattr(transformer, CONFIG, {}), "transform": choice})


def contained(transformer: Any, rows: np.ndarray, names: Any, table: Any) -> Any:
    """``rows``, made from ``table``, in ``transformer``'s output container: the array itself by default (its names
    kept for :func:`output_names`), else a
    pandas DataFrame (with the index of ``table`` when it is a named table) or a polars DataFrame with columns
    ``names``."""
    output = getattr(transformer, CONFIG, {}).get("transform", "default")
    if output == "default":
        _remember(rows, names)
        return rows
    if output == "pandas":
        import pandas

        index = getattr(table, "index", None) if tables.column_names(table) is not None else None
        return pandas.DataFrame(rows, columns=list(names), index=index)
    import polars

    return polars.DataFrame(rows, schema=list(names), orient="row")


def transformer_tags(*, needs_fit: bool, text: bool) -> Any:
    """scikit-learn's tags (``sklearn.utils.Tags``, scikit-learn >= 1.6) of a transformer that takes no target:
    ``needs_fit`` whether transform needs a fit first, ``text`` whether it reads text and categorical columns."""
    from sklearn.utils import Tags, TargetTags, TransformerTags

    tags = Tags(estimator_type=None, target_tags=TargetTags(required=False), transformer_tags=TransformerTags())
    tags.requires_fit = needs_fit
    tags.input_tags.string = text
    tags.input_tags.categorical = text
    return tags
