"""Tuning a pipeline of a public schema and an estimator: the estimator tuned on the rows the schema encodes.

A scikit-learn ``Pipeline`` of two steps, a :class:`~dpcvx.data.preprocessing.PublicSchema` and a learner, is the
model of a table that ``dpcvx.save`` writes with its schema. The schema is public and reads nothing of the rows
(its ``fit`` learns nothing), and it encodes each record alone, so encoding X first and tuning the learner on the
encoded rows is the same procedure as tuning the pipeline, with the same guarantee: the released model is the
pipeline with the selected learner as its last step. The grid names the learner's parameters as scikit-learn does,
``"<step>__<parameter>"``; the schema's are not tuned (it is fixed before the data are seen). Duck-typed
(``steps``): scikit-learn is optional.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...data.kernels import feature_map_route
from ...data.preprocessing import PublicSchema, schema_step_route
from ...exceptions import InputError

__all__ = ["SchemaPipeline", "schema_pipeline"]


@dataclass(frozen=True)
class SchemaPipeline:
    """A pipeline (``original``) of a public ``schema`` and the learner ``estimator``, its last step ``name``."""

    original: Any
    schema: PublicSchema
    name: str
    estimator: Any

    def grid(self, grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]]) -> Any:
        """``grid`` with the learner's names ``"<step>__<parameter>"`` as the learner's own; any other name
        (the schema's, or a name without the step) refused."""
        if isinstance(grid, Mapping):
            return {self._parameter(name): values for name, values in grid.items()}
        if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence):
            return grid  # refused by expand_grid, in its own words
        return [{self._parameter(name): value for name, value in point.items()} if isinstance(point, Mapping)
                else point for point in grid]

    def _parameter(self, name: Any) -> Any:
        prefix = f"{self.name}__"
        if isinstance(name, str) and name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
        raise InputError(f"the grid of a pipeline names its last step's parameters as {prefix}PARAMETER "
                         f"(scikit-learn's convention), got {name!r}: the PublicSchema is public and fixed before the "
                         "data are seen, so tune selects none of its settings. Nothing was charged")

    def encode(self, X: Any) -> Any:
        """X encoded by the public schema (each record alone; nothing of the rows is learnt)."""
        return self.schema.transform(X)

    def released(self, model: Any) -> Any:
        """A copy of the pipeline whose last step is the selected, fitted ``model`` (the user's pipeline unchanged)."""
        fitted = copy.copy(self.original)
        fitted.steps = [*self.original.steps[:-1], (self.name, model)]
        return fitted

    def params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The selected parameters as the grid named them."""
        return {f"{self.name}__{name}": value for name, value in params.items()}


def schema_pipeline(learner: Any) -> SchemaPipeline | None:
    """The pipeline ``learner`` as a :class:`SchemaPipeline` when its steps are a PublicSchema and a learner; None
    for a learner that is not a pipeline. A pipeline of other steps is refused: tune cannot see what they learn
    from the rows (a scaler's fit reads their spread, which no guarantee covers)."""
    steps = getattr(learner, "steps", None)
    if not isinstance(steps, list):
        return None
    shaped = all(isinstance(step, tuple) and len(step) == 2 and isinstance(step[0], str) for step in steps)
    if shaped and len(steps) == 2 and isinstance(steps[0][1], PublicSchema):
        steps[0][1].fit()  # reads nothing; refuses a model file's schema kept for its predictions only
        return SchemaPipeline(learner, steps[0][1], steps[1][0], steps[1][1])
    kinds = [type(step[1]).__name__ if isinstance(step, tuple) and len(step) == 2 else type(step).__name__
             for step in steps]
    raise InputError(f"tune takes a pipeline of two steps, a PublicSchema and a learner (the model dpcvx.save writes "
                     f"with its schema); this one's steps are {kinds}. Another step's fit reads the rows (a scaler's "
                     "their spread), which no guarantee covers: encode the table with a PublicSchema, whose public "
                     f"bounds read nothing, and tune the learner{schema_step_route(steps)}{feature_map_route(steps)}. "
                     "Nothing was charged")
