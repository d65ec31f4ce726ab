"""scikit-learn's transformer API for dpcvx's public transformers, :class:`~dpcvx.PublicSchema` and
:class:`~dpcvx.RandomFourierFeatures`, without importing scikit-learn until it asks: the output container and the
tags.

``set_output(transform=...)`` chooses what ``transform`` returns: "default" (a numpy array), "pandas" or "polars"
(a DataFrame whose columns are ``get_feature_names_out()``); None keeps the current choice. The choice is kept in
the attribute ``_sklearn_output_config`` under the key "transform", the name and shape scikit-learn's ``clone``
copies to a clone (a pipeline's ``set_output`` survives ``cross_val_score`` and a grid search). It is never part of
a transformer's parameters or of a saved file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import tables
from ..validation import check_choice

__all__ = ["OUTPUTS", "set_output", "contained", "transformer_tags"]

OUTPUTS = ("default", "pandas", "polars")  # what set_output offers, as in scikit-learn
CONFIG = "_sklearn_output_config"  # the attribute scikit-learn's clone copies


def set_output(transformer: Any, transform: str | None) -> None:
    """Record ``transform`` (checked; None keeps the current choice) as ``transformer``'s output container."""
    if transform is not None:
        choice = check_choice("set_output(transform=...)", transform, OUTPUTS)
        object.__setattr__(transformer, CONFIG, {**getattr(transformer, CONFIG, {}), "transform": choice})


def contained(transformer: Any, rows: np.ndarray, names: Any, table: Any) -> Any:
    """``rows``, made from ``table``, in ``transformer``'s output container: the array itself by default, else a
    pandas DataFrame (with the index of ``table`` when it is a named table) or a polars DataFrame with columns
    ``names``."""
    output = getattr(transformer, CONFIG, {}).get("transform", "default")
    if output == "default":
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
