"""Fixtures shared by the models' tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.privacy.column_ranges import SEARCH_DEPTH, grid_points

SearchValues = Callable[[np.random.Generator, int, int, int], tuple[np.ndarray, np.ndarray]]


@pytest.fixture()
def search_values() -> SearchValues:
    """``make(rng, case, low, high)``: (values, bounds) of a range-search test case, n in [low, high) rows of 1 to 8
    columns, concentrated or spread about a centre inside public bounds of any scale; every third case with ties,
    values on the search's grid points and at the bounds themselves."""
    def make(rng: np.random.Generator, case: int, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
        n, k = int(rng.integers(low, high)), int(rng.integers(1, 9))
        bounds = 10.0 ** rng.uniform(-3, 2, k)
        centre, scale = rng.uniform(-0.9, 0.9, k) * bounds, 10.0 ** rng.uniform(-4, 0, k) * bounds
        values = np.clip(centre + scale * rng.standard_normal((n, k)), -bounds, bounds)
        if case % 3 == 0:  # ties, grid points and the bounds themselves
            values[: n // 4] = grid_points(rng.integers(0, (1 << SEARCH_DEPTH) + 1, (n // 4, k)), bounds)
            values[n // 4: n // 3] = values[0]
        return values, bounds
    return make


Edit = Callable[[dict], None]
RefusedEdits = Callable[..., None]


def _scale_map(saved: dict) -> None:
    saved["preprocessing"]["row_map"]["feature_map"]["multiplier"][0] *= 2


def _move_feature_range(saved: dict) -> None:
    saved["certificate"]["column_statistics"]["ranges"][1][0] += 0.01


def _move_label_range(saved: dict) -> None:
    saved["certificate"]["column_statistics"]["ranges"][1][-1] += 0.01


def _add_a_range(saved: dict) -> None:
    statistics = saved["certificate"]["column_statistics"]
    statistics["ranges"] = [[0.0] + side for side in statistics["ranges"]]


@pytest.fixture()
def refused_edits() -> RefusedEdits:
    """``refuse(saved, tmp_path, more, every_column=True)``: a saved regression file of a ranged mechanism
    (adassp-ranged, gradient-ranged) is refused by ``dpcvx.load`` after each edit, with the words given: the label's
    range moved, then with every column's ranges searched its map scaled and a feature's range moved, with the
    label's alone a range added; then each of ``more`` ({name: (edit, words)})."""
    def refuse(saved: dict, tmp_path: Path, more: dict[str, tuple[Edit, str]], every_column: bool = True) -> None:
        edits: dict[str, tuple[Edit, str]] = {"label range": (_move_label_range, "calibration")}
        if every_column:
            edits |= {"map": (_scale_map, "feature_map"), "feature range": (_move_feature_range, "feature_map")}
        else:
            edits |= {"one more range": (_add_a_range, "ranges")}
        for edit, words in (edits | more).values():
            edited = json.loads(json.dumps(saved))
            edit(edited)
            (tmp_path / "edited.json").write_text(json.dumps(edited))
            with pytest.raises(dpcvx.InputError, match=words):
                dpcvx.load(tmp_path / "edited.json")
    return refuse
