"""Whether a binary linear release predicts one class on every record its public schema can encode.

The check of :mod:`dpcvx.release.usefulness` bounds the score s(x) = w^T x + b over the whole ball ||x|| <= R. A
release saved with a :class:`~dpcvx.data.preprocessing.PublicSchema` never scores most of that ball: its rows are
the schema's codes of records (one-hot blocks of 0s and one 1, or all 0s for a value outside a non-strict
schema's categories; numeric codes within their declared range, the imputed code with a missing indicator 1; the
constant feature 1), each divided by max(1, ||e|| / norm), then the release's row map: a
:class:`~dpcvx.data.standardiser.ColumnStandardiser` (each row first scaled onto its ``input_bound``, then
y_j = clip((z_j - c_j) m_j, -C, C)) or no map, the learner's scaling onto ||y|| <= R, and the intercept b added
after it. On 1 % and 2.3 % rare-class tables (an analyst probe, session 65) every default release predicted the
common class on every record the schema can encode, while the ball check said so of 6 in 20.

:func:`score_range` bounds the score over every record the schema can encode, reading only the schema, the row
map and the released weights (post-processing of the release, no privacy spent); :func:`encodable_class` gives the
class predicted on all of them when the bounds put every score on one side of the decision cut. Sound, not exact:
it never names a class when an encodable record gets the other one (docs/theory.md, section "A release that
predicts one class", the proof), but it may say nothing of a release that is in fact constant there.

The argument, in brief. Both row scalings before the map (the schema's norm, the map's input bound) multiply the
code e by one factor a = min(1, rho / ||e||) in [a_lo, 1], rho the smaller bound and a_lo = min(1, rho / M) with
M the largest code norm the declaration allows (:attr:`PublicSchema.largest_row_norm`). For a fixed a the mapped
score u = sum_j g_j(a e_j), g_j(z) = w_j clip((z - c_j) m_j, -C, C), is a sum over the schema's columns, each
column's codes chosen on its own; each g_j is monotone, so over a in [a1, a2] the coordinate's values a e_j fill an
interval whose ends bound g_j. The largest (least) u over [a_lo, 1] is bounded by the largest (least) of these
sums over a partition of [a_lo, 1]. The learner's scaling y -> t y, t in (0, 1], t >= t_min = min(1, R / Y) (Y the
largest ||y||), keeps the sign of u and brings it no further from 0, and |t u| <= ||w|| R (Cauchy-Schwarz): so
sup t u <= min(U, ||w|| R) for U >= 0 and t_min U for U < 0, and symmetrically below. The bounds are widened by a
relative 1e-9 of the sum of the terms' sizes, so that a score computed in floating point never contradicts them;
for a one-vs-rest release (:func:`argmax_class`, which checks the differences of two classes' scores) by a relative
1e-9 of the sum of BOTH classes' terms' sizes, since ``predict`` rounds each class's score on its own.

Cost. :func:`score_range` is vectorised over the candidates in chunks of :data:`CHUNK` (its memory does not grow
with PIECES x categories, nor with PIECES x columns); the search is bounded by :data:`WORK` column bounds in all
(each branch's bound reads every column once), counted, not timed, so what it says does not depend on the machine.
A check builds the schema's codes once (:class:`_Codes`), whatever its bounds, searches and one-vs-rest pairs. A bound
reads all of a branch's columns in one pass of array operations (:class:`_Branch`), adding in the order a loop over
the columns added, so that it finds the same bounds to the last bit: a Python loop over the columns made the report
of a 16-column release spend some 3 s of CPU on its 2,500 bounds (benchmarks/results/report_speed.md).
"""

from __future__ import annotations

import functools
import heapq
import math
from typing import Any

import numpy as np

from ..advice import for_reader
from ..data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema
from ..data.standardiser import ColumnStandardiser
from ..exceptions import ConstantPredictionWarning
from .usefulness import TUNE_ADVICE, constant_class, speaker, warn_release

__all__ = ["score_range", "encodable_class", "encodable_finding", "PIECES", "WORK", "CHUNK",
           "warn_if_encodable_constant", "argmax_class", "DOMAIN_DRAWS", "DOMAIN_SEED", "DOMAIN_SHARE",
           "domain_draws", "domain_counts", "domain_share", "domain_rare_classes", "domain_finding"]

#: How many equal parts [a_lo, 1] is split into (a_lo < 1): the bound over each part is taken at its ends. 256 parts
#: of the credit and clinical tables' [0.63, 1] and [0.53, 1] take some 2 ms
PIECES = 256
#: How many candidates :func:`score_range` bounds in one (PIECES x CHUNK) array: its memory stays some 20 MB for
#: any number of categories
CHUNK = 1024
_UP = 1e-9  # the relative margin of floating-point scores, as usefulness's
_SCALE_SLACK = 1e-9  # a_lo and t_min taken this much lower: the rows' scalings shrink a row by a few ulp more


def _candidates(schema: PublicSchema) -> tuple[list[list[tuple[int, float, float]]], list[int]]:
    """Each column's encodable codes as candidates: a candidate is the coordinates it sets (feature index, least
    code, largest code; every other coordinate of the column 0). (candidates, the column of each)."""
    centred = schema.encoding == "centred"
    low, high = (-0.5, 0.5) if centred else (0.0, 1.0)
    candidates: list[list[tuple[int, float, float]]] = []
    block: list[int] = []
    start = 0
    for index, column in enumerate(schema.columns):
        if isinstance(column, CategoricalColumn):
            for slot in range(len(column.categories)):
                candidates.append([(start + slot, 1.0, 1.0)])
                block.append(index)
            if not schema.strict:  # a value outside the categories (or a missing one without a category)
                candidates.append([])
                block.append(index)
        else:
            assert isinstance(column, NumericColumn)
            candidates.append([(start, low, high)] + ([(start + 1, 0.0, 0.0)] if column.missing_indicator else []))
            block.append(index)
            if column.missing_indicator:  # a missing value: the imputed code and the indicator 1
                assert column.missing is not None
                code = float(column._unit(np.array([column.missing]))[0]) - (0.5 if centred else 0.0)
                candidates.append([(start, code, code), (start + 1, 1.0, 1.0)])
                block.append(index)
        start += len(column.feature_names)
    if schema.constant_feature:
        candidates.append([(start, 1.0, 1.0)])
        block.append(len(schema.columns))
    return candidates, block


class _Codes:
    """A schema's encodable codes, built once per check: its candidates (:func:`_candidates`), every coordinate they
    set (:func:`_entries`: owner, feature, least, largest) and, when the search needs them, one :class:`_Column`
    per column (:func:`_columns`: the search's first :class:`_Branch`)."""

    def __init__(self, schema: PublicSchema) -> None:
        self.schema = schema
        self.candidates, self.block = _candidates(schema)
        self.owner, self.feature, self.least, self.largest = _entries(self.candidates)

    @functools.cached_property
    def root(self) -> _Branch:
        """One :class:`_Column` per column (the constant feature too): the search's first branch."""
        return _columns(self.schema, self.candidates, self.block)


def score_range(coef: np.ndarray, intercept: float, rows: Any, schema: PublicSchema) -> tuple[float, float] | None:
    """(a lower bound of the least, an upper bound of the largest) decision value w^T x + b of a binary linear
    release over every record ``schema`` can encode, mapped by ``rows`` (a :class:`~dpcvx.data.rows.RowMap`: no
    feature map or a :class:`~dpcvx.data.standardiser.ColumnStandardiser`, the clip onto its R, the intercept
    ``intercept`` added after it), with [a_lo, 1] split into :data:`PIECES` parts. None when the row map has another
    feature map, or the widths differ. Reads only public inputs and the release (module docstring; docs/theory.md,
    section "A release that predicts one class")."""
    weights = np.asarray(coef, dtype=float)
    parts = _map_parts(weights, rows, schema)
    return None if parts is None else _score_range(weights, intercept, rows, schema, parts, _Codes(schema))


def _score_range(weights: np.ndarray, intercept: float, rows: Any, schema: PublicSchema,
                 parts: tuple[np.ndarray, np.ndarray, float, float], codes: _Codes) -> tuple[float, float]:
    """:func:`score_range` for the row map's ``parts`` (:func:`_map_parts`) and the schema's ``codes``."""
    centre, multiplier, clip, input_bound = parts
    a_lo = min(1.0, min(schema.norm, input_bound) / schema.largest_row_norm) * (1 - _SCALE_SLACK)

    def mapped(z: np.ndarray, j: np.ndarray) -> np.ndarray:  # g_j(z) = w_j clip((z - c_j) m_j, -C, C)
        return weights[j] * np.clip((z - centre[j]) * multiplier[j], -clip, clip)

    at_zero = mapped(np.zeros(weights.size), np.arange(weights.size))  # a coordinate a candidate leaves 0
    owner, feature, least, largest = codes.owner, codes.feature, codes.least, codes.largest
    ends = np.linspace(a_lo, 1.0, PIECES + 1) if a_lo < 1.0 else np.array([1.0, 1.0])
    a1, a2 = ends[:-1, None], ends[1:, None]
    n_candidates, block_of = len(codes.candidates), np.array(codes.block, dtype=np.intp)
    # sum over the columns of each column's largest (least) change, per part of [a_lo, 1]: the columns (block_of
    # ascends) completed so far, then the one a chunk may leave open for the next
    closed_best, closed_worst = np.zeros(ends.size - 1), np.zeros(ends.size - 1)
    open_block, open_best, open_worst = -1, np.zeros(ends.size - 1), np.zeros(ends.size - 1)
    for first in range(0, n_candidates, CHUNK):  # CHUNK candidates at a time: memory PIECES x CHUNK, not x all
        last = min(first + CHUNK, n_candidates)
        start, stop = np.searchsorted(owner, first), np.searchsorted(owner, last)  # owner ascends
        j = feature[start:stop]
        low = np.minimum(a1 * least[start:stop], a2 * least[start:stop])  # a e_j, a in [a1, a2]: this interval
        high = np.maximum(a1 * largest[start:stop], a2 * largest[start:stop])
        g_low, g_high = mapped(low, j), mapped(high, j)
        best, worst = (np.zeros((last - first, ends.size - 1)) for _ in range(2))
        setting, entry_starts = np.unique(owner[start:stop] - first, return_index=True)  # candidates with entries
        if setting.size:  # g_j monotone: its extremes over an interval at the interval's ends
            best[setting] = np.add.reduceat((np.maximum(g_low, g_high) - at_zero[j]).T, entry_starts)
            worst[setting] = np.add.reduceat((np.minimum(g_low, g_high) - at_zero[j]).T, entry_starts)
        blocks, block_starts = np.unique(block_of[first:last], return_index=True)
        block_best, block_worst = np.maximum.reduceat(best, block_starts), np.minimum.reduceat(worst, block_starts)
        if blocks[0] == open_block:  # the column left open goes on in this chunk
            block_best[0] = np.maximum(block_best[0], open_best)
            block_worst[0] = np.minimum(block_worst[0], open_worst)
        else:
            closed_best, closed_worst = closed_best + open_best, closed_worst + open_worst
        closed_best = closed_best + block_best[:-1].sum(axis=0)
        closed_worst = closed_worst + block_worst[:-1].sum(axis=0)
        open_block, open_best, open_worst = int(blocks[-1]), block_best[-1], block_worst[-1]
    base = float(np.sum(at_zero))  # every coordinate at 0, then each column's candidate's change
    upper = base + float(np.max(closed_best + open_best))
    lower = base + float(np.min(closed_worst + open_worst))
    t_min, ball, margin = _reach(weights, intercept, rows, parts, feature, least, largest)
    top = min(upper, ball) if upper >= 0 else t_min * upper
    bottom = max(lower, -ball) if lower <= 0 else t_min * lower
    return float(intercept) + bottom - margin, float(intercept) + top + margin


def _entries(candidates: list[list[tuple[int, float, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                         np.ndarray]:
    """(owner, feature, least, largest): every coordinate the candidates set, in the candidates' order."""
    entries = [(c, j, p, q) for c, coordinates in enumerate(candidates) for j, p, q in coordinates]
    return (np.array([c for c, _, _, _ in entries], dtype=np.intp),
            np.array([j for _, j, _, _ in entries], dtype=np.intp),
            np.array([p for _, _, p, _ in entries], dtype=float), np.array([q for _, _, _, q in entries], dtype=float))


def _coordinate_reach(parts: tuple[np.ndarray, np.ndarray, float, float], feature: np.ndarray, least: np.ndarray,
                      largest: np.ndarray) -> np.ndarray:
    """Each mapped coordinate's largest |y_j| over every encodable code: the coordinate's values lie in [min(0, p),
    max(0, q)] (``feature``, ``least``, ``largest``: the codes' coordinates and their ranges), and |clip| of a
    monotone map is largest at an end."""
    centre, multiplier, clip, _ = parts
    span_low, span_high = np.zeros(centre.size), np.zeros(centre.size)
    np.minimum.at(span_low, feature, least)
    np.maximum.at(span_high, feature, largest)
    return np.maximum(np.abs(np.clip((span_low - centre) * multiplier, -clip, clip)),
                      np.abs(np.clip((span_high - centre) * multiplier, -clip, clip)))


def _reach(weights: np.ndarray, intercept: float, rows: Any, parts: tuple[np.ndarray, np.ndarray, float, float],
           feature: np.ndarray, least: np.ndarray, largest: np.ndarray) -> tuple[float, float, float]:
    """(t_min, ||w|| R, the floating-point margin): the learner's scaling t y onto R is at least t_min = min(1, R /
    Y), Y a bound of ||y|| from every coordinate's largest |y_j| (:func:`_coordinate_reach`); the margin is a
    relative 1e-9 of the sum of the terms' sizes, sum_j |w_j| max|y_j| + |b|: ``predict`` computes w^T y + b with
    a rounding error of at most (d + 2) ulp of that sum, far below 1e-9 of it for any d < 10^6."""
    reach = _coordinate_reach(parts, feature, least, largest)
    largest_norm = float(np.linalg.norm(reach)) * (1 + _SCALE_SLACK)
    R = float(rows.norm_bound)
    t_min = min(1.0, R / largest_norm) * (1 - _SCALE_SLACK) if largest_norm > 0 else 1.0
    margin = _UP * (float(np.sum(np.abs(weights) * reach)) + abs(float(intercept))) + 1e-300
    return t_min, float(np.linalg.norm(weights)) * R, margin


class _Column:
    """One column's encodable codes that a branch of the search allows: its candidates (each the coordinates it sets,
    (feature, least code, largest code), every other coordinate of the column 0), their squared norms' ranges, and
    what the search reads of them, computed once when the column is made (a split makes two), not per bound."""

    def __init__(self, candidates: list[list[tuple[int, float, float]]], features: np.ndarray) -> None:
        self.candidates, self.features = candidates, features
        self.squares = [(sum(0.0 if p <= 0 <= q else min(p * p, q * q) for _, p, q in c),
                         sum(max(p * p, q * q) for _, p, q in c)) for c in candidates]
        pairs = [(index, j, p, q) for index, c in enumerate(candidates) for j, p, q in c]
        self.owner = np.array([pair[0] for pair in pairs], dtype=np.intp)
        self.feature = np.array([pair[1] for pair in pairs], dtype=np.intp)
        self.least = np.array([pair[2] for pair in pairs])
        self.largest = np.array([pair[3] for pair in pairs])
        #: the least and the largest squared norm of its allowed codes
        self.least_square = min(low for low, _ in self.squares)
        self.most_square = max(high for _, high in self.squares)
        #: how far apart the squared norms of its allowed codes lie: what splitting it narrows
        self.spread = self.most_square - self.least_square
        if len(candidates) == 1 and self.least.size and self.least[0] < self.largest[0]:
            self.spread = max(self.squares[0][1] - self.squares[0][0], float(self.largest[0] - self.least[0]) ** 2)

    def halves(self) -> tuple[_Column, _Column]:
        """The column's allowed codes in two parts: its candidates by squared norm, or one numeric interval [p, q]
        bisected (at 0 when it holds 0 inside, where the square is least)."""
        if len(self.candidates) > 1:
            order = sorted(range(len(self.candidates)), key=lambda index: self.squares[index])
            half = len(order) // 2
            return (_Column([self.candidates[i] for i in order[:half]], self.features),
                    _Column([self.candidates[i] for i in order[half:]], self.features))
        (j, p, q), *rest = self.candidates[0]
        middle = 0.0 if p < 0 < q else (p + q) / 2
        return _Column([[(j, p, middle), *rest]], self.features), _Column([[(j, middle, q), *rest]], self.features)


class _Branch:
    """A branch of the search: one :class:`_Column` per column of the schema, in its order, with every column's
    candidates and coordinates laid end to end, so that a bound reads all the columns in a few array operations
    rather than a Python loop over them (16 numeric columns: 2,500 bounds took some 3 s of CPU, session 71)."""

    def __init__(self, columns: tuple[_Column, ...]) -> None:
        self.columns = columns
        sizes = [len(column.candidates) for column in columns]
        #: every candidate's column, each column's first candidate, how many candidates in all
        self.column_of = np.repeat(np.arange(len(columns)), sizes)
        self.starts = np.cumsum([0] + sizes[:-1])
        self.size = sum(sizes)
        #: every coordinate the candidates set: its candidate (an index of all of them), feature, least, largest
        self.owner = np.concatenate([column.owner for column in columns]) + np.repeat(
            self.starts, [column.owner.size for column in columns])
        self.feature = np.concatenate([column.feature for column in columns])
        self.least = np.concatenate([column.least for column in columns])
        self.largest = np.concatenate([column.largest for column in columns])
        #: the columns with a coordinate to set (the others allow only the all-zero code)
        self.setting = np.array([column.owner.size > 0 for column in columns])
        #: the range of ||e||^2 over the branch's codes (summed in the columns' order, as any change must keep)
        self.least_square = sum(column.least_square for column in columns)
        self.most_square = sum(column.most_square for column in columns)

    def __len__(self) -> int:
        return len(self.columns)

    def split(self, index: int, half: _Column) -> _Branch:
        """The branch with column ``index``'s allowed codes narrowed to ``half``."""
        return _Branch(self.columns[:index] + (half,) + self.columns[index + 1:])


def _per_candidate(branch: _Branch, values: np.ndarray) -> np.ndarray:
    """The sum of ``values`` (one per coordinate of ``branch``) over each candidate's coordinates, added in their
    order from 0 (np.bincount, as np.add.at added them; 0 for a candidate that sets none)."""
    return np.bincount(branch.owner, values, branch.size).astype(float, copy=False)


def _in_order(start: float, terms: np.ndarray) -> float:
    """start + terms[0] + terms[1] + ..., added left to right (np.sum adds pairwise, which can round otherwise):
    the columns' sum exactly as a loop over the columns adds it."""
    for term in terms.tolist():
        start += term
    return start


class _Search:
    """The bound of the largest mapped score u = sum_j g_j(a e_j) over a branch (one set of allowed codes per
    column), for weights ``weights`` (negated for the least score); ``root``: the search's first branch (every
    column's squared norm at 0, ``zeros``, is read from it once)."""

    def __init__(self, weights: np.ndarray, centre: np.ndarray, multiplier: np.ndarray, clip: float,
                 rho: float, R: float, root: _Branch) -> None:
        self.weights, self.centre, self.multiplier, self.clip, self.rho = weights, centre, multiplier, clip, rho
        self.R, self.ball = R, float(np.linalg.norm(weights)) * R
        every = np.arange(weights.size)
        self.at_zero = self.mapped(np.zeros(weights.size), every)
        self.zero_squares = self.coordinate(np.zeros(weights.size), every) ** 2
        self.base = float(np.sum(self.at_zero))
        #: each column's sum_j y_j(0)^2 over its features: a split keeps a column's features
        self.zeros = np.array([float(np.sum(self.zero_squares[column.features])) for column in root.columns])

    def coordinate(self, z: np.ndarray, j: np.ndarray) -> np.ndarray:
        """y_j = clip((z - c_j) m_j, -C, C): the feature map's coordinate j, monotone in z."""
        return np.clip((z - self.centre[j]) * self.multiplier[j], -self.clip, self.clip)

    def mapped(self, z: np.ndarray, j: np.ndarray) -> np.ndarray:
        """g_j(z) = w_j y_j(z): monotone in z."""
        return self.weights[j] * self.coordinate(z, j)

    def scaled(self, upper: float, squares: tuple[float, float]) -> float:
        """The bound of t u over a branch whose u is at most ``upper`` and whose ||y||^2 lies in ``squares``: the
        learner's factor t = min(1, R / ||y||) lies in [t_lo, t_hi], so t u <= t_hi u for u >= 0 and t_lo u for
        u < 0; and |t u| <= ||w|| R."""
        low, high = squares
        t_lo = min(1.0, self.R / math.sqrt(high * (1 + _SCALE_SLACK))) * (1 - _SCALE_SLACK) if high > 0 else 1.0
        t_hi = min(1.0, self.R / math.sqrt(low * (1 - _SCALE_SLACK))) if low > 0 else 1.0
        return min(t_hi * upper, self.ball) if upper >= 0 else t_lo * upper

    def scalings(self, branch: _Branch) -> tuple[float, float]:
        """[a1, a2]: the factor a = min(1, rho / ||e||) of every code the branch allows, from its squared norms."""
        low, high = branch.least_square, branch.most_square
        a1 = min(1.0, self.rho / math.sqrt(high)) if high > 0 else 1.0
        a2 = min(1.0, self.rho / math.sqrt(low)) if low > 0 else 1.0
        return a1 * (1 - _SCALE_SLACK), min(1.0, a2 * (1 + _SCALE_SLACK))

    def bound(self, branch: _Branch) -> tuple[float, tuple[np.ndarray, np.ndarray]]:
        """(the bound of u over the branch, the chosen codes (features, values): each column's candidate of its
        largest bound, the first of equal ones, with each coordinate at the end of its interval where g_j is
        larger, for a witness record)."""
        a1, a2 = self.scalings(branch)
        feature, least, largest, setting = branch.feature, branch.least, branch.largest, branch.setting
        low = np.minimum(a1 * least, a2 * least)
        high = np.maximum(a1 * largest, a2 * largest)
        y_low, y_high = self.coordinate(low, feature), self.coordinate(high, feature)
        weight = self.weights[feature]
        g_low, g_high = weight * y_low, weight * y_high
        per = _per_candidate(branch, np.maximum(g_low, g_high) - self.at_zero[feature])
        # each column's first candidate of the largest bound (np.argmax's: a NaN, the first one, counts as largest)
        top = np.maximum.reduceat(per, branch.starts)
        first = np.where((per == top[branch.column_of]) | np.isnan(per), np.arange(branch.size), branch.size)
        best = np.minimum.reduceat(first, branch.starts)[setting]
        total = _in_order(self.base, per[best])
        picked = np.zeros(branch.size, dtype=bool)
        picked[best] = True
        mine = picked[branch.owner]
        chosen = feature[mine], np.where(g_high >= g_low, largest, least)[mine]
        # ||y||^2 over each column: each coordinate a candidate sets within [y_low, y_high], the others y_j(0)
        inside = (y_low <= 0) & (y_high >= 0)
        at_zero = self.zero_squares[feature]
        fewest = np.where(inside, 0.0, np.minimum(y_low ** 2, y_high ** 2)) - at_zero
        most = np.maximum(y_low ** 2, y_high ** 2) - at_zero
        per_least = np.minimum.reduceat(_per_candidate(branch, fewest), branch.starts)
        per_most = np.maximum.reduceat(_per_candidate(branch, most), branch.starts)
        least_squares = _in_order(0.0, np.where(setting, self.zeros + per_least, self.zeros))
        most_squares = _in_order(0.0, np.where(setting, self.zeros + per_most, self.zeros))
        return self.scaled(total, (max(least_squares, 0.0), most_squares)), chosen


def _columns(schema: PublicSchema, candidates: list[list[tuple[int, float, float]]],
             block: list[int]) -> _Branch:
    """Every column's encodable codes (``candidates`` and their columns ``block``, :func:`_candidates`), one
    :class:`_Column` each (the constant feature too): the search's first branch."""
    starts = np.cumsum([0] + [len(column.feature_names) for column in schema.columns] + [1])
    grouped: dict[int, list] = {}
    for candidate, index in zip(candidates, block, strict=True):  # one pass: a filter per column was quadratic
        grouped.setdefault(index, []).append(candidate)           # (60,000 columns took minutes)
    return _Branch(tuple(_Column(grouped[index], np.arange(starts[index], starts[index + 1]))
                         for index in sorted(grouped)))


#: How many column bounds the search of :func:`encodable_class` (both sides) or :func:`argmax_class` (all its
#: pairs) makes in all before it gives up (says nothing): each branch's bound reads every column once, so a split
#: costs twice the number of columns. Counted, not timed: the same answer on any machine (its cost:
#: benchmarks/results/encodable_cost.md)
WORK = 40_000


def _map_parts(weights: np.ndarray, rows: Any,
               schema: PublicSchema) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """(centre, multiplier, clip, input bound) of the row map's feature map (none: the identity), or None when the
    map is not one :func:`encodable_class` reads or the widths differ."""
    feature_map = rows.feature_map
    if weights.ndim != 1 or weights.size != schema.dimension:
        return None
    if feature_map is None:
        return np.zeros(weights.size), np.ones(weights.size), math.inf, math.inf
    if type(feature_map) is ColumnStandardiser and feature_map.centre.size == weights.size:
        return (feature_map.centre, feature_map.multiplier,
                math.inf if feature_map.clip is None else feature_map.clip,
                math.inf if feature_map.input_bound is None else feature_map.input_bound)
    return None


def encodable_class(coef: np.ndarray, intercept: float, rows: Any, schema: PublicSchema,
                    cut: float = 0.0) -> int | None:
    """The index (into the public pair of classes) a binary linear release predicts on every record ``schema`` can
    encode at the decision cut ``cut`` (``classes[1]`` where w^T x + b > cut), proved; None when it is not proved
    (an encodable record found that gets the other class, or the search gave up, or a row map it does not read).

    First the bounds of :func:`score_range`; when they do not settle it, a branch-and-bound search: each branch
    allows a part of each column's codes, which narrows the range of ||e|| and so of the scaling a; the branch of
    the largest bound is split (the column whose codes' squared norms lie furthest apart); a branch whose bound puts
    every score on the class's side is settled; the search stops with None at an encodable record (each column's
    code of the branch's bound) that the release, scoring it as ``predict`` does, puts on the other side, or after
    :data:`WORK` column bounds (both sides together). docs/theory.md, section "A release that predicts one class"."""
    weights = np.asarray(coef, dtype=float)
    parts = _map_parts(weights, rows, schema)
    return None if parts is None else _class(weights, intercept, rows, schema, parts, _Codes(schema), cut, 0.0,
                                             [WORK])


def _class(weights: np.ndarray, intercept: float, rows: Any, schema: PublicSchema,
           parts: tuple[np.ndarray, np.ndarray, float, float], codes: _Codes, cut: float, extra: float,
           budget: list[int]) -> int | None:
    """:func:`encodable_class` for the row map's ``parts`` and the schema's ``codes``, with every bound widened by
    ``extra`` more (the other class's rounding, for :func:`argmax_class`), the search spending at most ``budget[0]``
    column bounds (what it spends is taken off)."""
    bounds = _score_range(weights, intercept, rows, schema, parts, codes)
    slack = _UP * abs(cut) + extra
    if bounds[0] - slack > cut:
        return 1
    if bounds[1] + slack <= cut:
        return 0
    for index, sign in ((0, 1.0), (1, -1.0)):  # class 0: the largest score <= cut; class 1: the least > cut
        if _settled(sign, weights, float(intercept), rows, schema, parts, codes, cut, extra, budget):
            return index
    return None


def _settled(sign: float, weights: np.ndarray, intercept: float, rows: Any, schema: PublicSchema,
             parts: tuple[np.ndarray, np.ndarray, float, float], codes: _Codes, cut: float, extra: float,
             budget: list[int]) -> bool:
    """Whether every encodable record's score is <= cut (``sign`` 1) or > cut (``sign`` -1), proved by the search of
    :func:`encodable_class` on sign * the score, each bound widened by ``extra``, within ``budget[0]`` column
    bounds (spent ones taken off)."""
    centre, multiplier, clip, input_bound = parts
    root = codes.root
    search = _Search(sign * weights, centre, multiplier, clip, min(schema.norm, input_bound), float(rows.norm_bound),
                     root)
    _, _, margin = _reach(weights, intercept, rows, parts, codes.feature, codes.least, codes.largest)
    # the bound of sign * t u over a branch must stay at or below this (class 0), or below it (class 1)
    target = sign * (cut - intercept) - margin - _UP * abs(cut) - extra

    def settled(upper: float) -> bool:
        return upper <= target if sign > 0 else upper < target

    if budget[0] < len(root):
        return False
    budget[0] -= len(root)
    upper, chosen = search.bound(root)
    queue = [(-upper, 0, root, chosen)]
    count = 0
    scored: dict[bytes, bool] = {}  # the witness records scored so far: many branches choose the same codes
    while queue:
        negated, _, branch, chosen = heapq.heappop(queue)
        if settled(-negated):
            return True  # the largest bound left: every branch settled
        if _witness(chosen, weights, intercept, rows, schema, cut, sign, scored) or budget[0] < 2 * len(branch):
            return False
        budget[0] -= 2 * len(branch)  # the split's two bounds
        columns = branch.columns
        widest = max(range(len(columns)), key=lambda index: columns[index].spread)
        if columns[widest].spread <= 0:
            return False  # the scaling is fixed: nothing left to narrow
        count += 1
        for order, half in enumerate(columns[widest].halves()):
            child = branch.split(widest, half)
            upper, chosen = search.bound(child)
            heapq.heappush(queue, (-upper, 2 * count + order, child, chosen))
    return True


def _witness(chosen: tuple[np.ndarray, np.ndarray], weights: np.ndarray, intercept: float, rows: Any,
             schema: PublicSchema, cut: float, sign: float, scored: dict[bytes, bool]) -> bool:
    """Whether the encodable record of the ``chosen`` codes (features, values; every other feature 0) is scored on
    the other side of ``cut`` than the class sought (``sign`` 1: above it; -1: at or below), scored as ``predict``
    scores it: the schema's scaling onto its norm, then the row map. ``scored``: the answers for the records scored
    already in this search (the answer is a function of the record alone), added to."""
    code = np.zeros((1, schema.dimension))
    code[0, chosen[0]] = chosen[1]
    key = code.tobytes()
    if key not in scored:
        score = float(rows.scores(schema.onto_norm(code), weights)[0]) + intercept
        scored[key] = score > cut if sign > 0 else score <= cut
    return scored[key]


def argmax_class(coef: np.ndarray, intercept: np.ndarray, rows: Any, schema: PublicSchema,
                 cut: np.ndarray | None = None) -> int | None:
    """The index of the class a one-vs-rest release (k scores s_c = w_c^T x + b_c, the class of the largest
    s_c - t_c predicted, ties to the first; ``cut`` the (k,) cuts t, zeros when None) predicts on every record
    ``schema`` can encode, proved; else None. Class i wins on every record when, for every j != i, the binary score
    (w_i - w_j)^T x + (b_i - b_j), over the same row map, exceeds t_i - t_j on every record (:func:`encodable_class`,
    index 1): sufficient, strict. The class tried is the one predicted on one encodable record (each column's first
    code), the only class that can be predicted on all of them.

    Floating point: ``predict`` rounds each class's s_c - t_c on its own, with an error of at most a relative 1e-9
    of its terms' sizes S_c = sum_j |w_cj| max|y_j| + |b_c| + |t_c| (max|y_j| each mapped coordinate's largest size
    over the encodable codes), however small the difference w_i - w_j; so each pair's check is widened by
    1e-9 (S_i + S_j) more (which also covers the rounding of w_i - w_j, b_i - b_j and t_i - t_j). The pairs share
    one budget of :data:`WORK` column bounds."""
    weights, offsets = np.asarray(coef, dtype=float), np.asarray(intercept, dtype=float)
    parts = None if weights.ndim != 2 else _map_parts(weights[0], rows, schema)
    if parts is None:
        return None
    cuts = np.broadcast_to(np.asarray(0.0 if cut is None else cut, dtype=float), (weights.shape[0],))
    codes = _Codes(schema)
    reach = _coordinate_reach(parts, codes.feature, codes.least, codes.largest)
    sizes = np.abs(weights) @ reach + np.abs(offsets) + np.abs(cuts)  # S_c: each class's score's terms' sizes
    code = np.zeros((1, schema.dimension))
    for column in codes.root.columns:
        for j, p, _ in (column.candidates[0] if column.candidates else []):
            code[0, j] = p
    scores = rows.scores(schema.onto_norm(code), weights)[0] + offsets - cuts
    i = int(np.argmax(scores))
    budget = [WORK]
    for j in range(weights.shape[0]):
        if j != i and _class(weights[i] - weights[j], float(offsets[i] - offsets[j]), rows, schema, parts, codes,
                             float(cuts[i] - cuts[j]), _UP * float(sizes[i] + sizes[j]), budget) != 1:
            return None
    return i


def encodable_finding(model: Any, schema: PublicSchema | None, cut: Any = None) -> str | None:
    """The statement that a linear classifier (a :class:`~dpcvx.release.model.PrivateModel` or a one-vs-rest
    :class:`~dpcvx.release.multiclass_model.PrivateMulticlassModel`, or anything with its ``coef_``, ``intercept_``,
    ``classes_``, ``rows`` and ``decision_cut``) predicts one class on every record its public ``schema`` can encode,
    at ``cut`` (its own ``decision_cut`` when None), when :func:`encodable_class` (binary) or :func:`argmax_class`
    (one-vs-rest) proves it; None otherwise, and without a schema. Public: the schema, the row map, the weights and
    the cut."""
    coef = np.asarray(getattr(model, "coef_", None))
    if schema is None or coef.ndim not in (1, 2) or not hasattr(model, "rows") or coef.dtype.kind not in "fiu":
        return None
    cut = getattr(model, "decision_cut", 0.0) if cut is None else cut
    if coef.ndim == 1:
        index = encodable_class(coef, float(model.intercept_), model.rows, schema, float(cut))
        at = "" if cut == 0 else f" at its decision cut {float(cut):g}"
    else:
        index = argmax_class(coef, model.intercept_, model.rows, schema, np.asarray(cut, dtype=float))
        at = "" if not np.any(cut) else " at its decision cuts"
    if index is None:
        return None
    label = np.asarray(model.classes_).tolist()[index]
    return (f"constant classifier on the declared schema: the release predicts the class {label!r}{at} on every "
            "record the declared schema can encode (each category of each categorical column, and an unknown value "
            "when the schema is not strict; every value of each numeric column within its bounds, a missing one as "
            "the schema imputes it; a public check of the schema, the row map and the released weights, no privacy "
            "spent). It is no better than predicting that class without data")


def warn_if_encodable_constant(owner: str, model: Any, schema: PublicSchema | None, cut: Any,
                               advice: str = "") -> None:
    """Warn :class:`~dpcvx.exceptions.ConstantPredictionWarning` when a binary linear release fitted with the public
    ``schema`` predicts one class on every record the schema can encode at its decision cut ``cut`` (a one-vs-rest
    release: its (k,) cuts)
    (:func:`encodable_finding`) and the check over the ball ||x|| <= R (:mod:`dpcvx.release.usefulness`, whose
    warning the fit gave already) does not say so: ``dpcvx fit`` with a schema. ``advice`` is added to the text
    (an estimator's :func:`~dpcvx.release.usefulness.rare_class_advice`)."""
    coef = np.asarray(getattr(model, "coef_", None))
    if schema is None or coef.ndim not in (1, 2) or getattr(model, "classes_", None) is None:
        return
    R = float(model.rows.norm_bound)
    ball = (constant_class(coef, float(model.intercept_), R, float(cut)) if coef.ndim == 1
            else constant_class(coef, np.asarray(model.intercept_) - np.asarray(cut, dtype=float), R))
    if ball is not None:
        return
    finding = encodable_finding(model, schema, cut)
    if finding is not None:
        warn_release(f"{speaker(owner)}: {for_reader(finding)}: raise epsilon or n, use fewer columns, or "
                     f"{TUNE_ADVICE}{advice}", ConstantPredictionWarning)


#: How many records :func:`domain_share` draws from the uniform law on the declared domain, and the public seed of
#: the draws (a constant: the same statement for the same release on any machine, no private value read)
DOMAIN_DRAWS = 20_000
DOMAIN_SEED = 20_261_207
#: :func:`domain_finding` speaks when the 95 % upper bound of the share of the domain's uniform law that a binary
#: release predicts as its less predicted class is below this (0.1 %). Chosen on a first look at 18 default fits of
#: benchmarks/one_class_threshold.py's tables, then recorded by it (results/one_class_threshold.md, 81 default fits
#: with a schema, 8 tables, epsilon 0.3 to 3): said of 42, on whose held-out rows that class was predicted on at most
#: 0.04 % (balanced accuracy at most 0.503); the 18 fits of balanced accuracy above 0.51 had uniform shares of 3 % or
#: more. Not validated on held-out tables: a table whose records fill a small corner of its declared domain could be
#: told it wrongly, which the statement's words allow for. A one-vs-rest release: each class's share, the same rule
#: (:func:`domain_rare_classes`; benchmarks/results/multiclass_domain.md)
DOMAIN_SHARE = 0.001
_DRAW_ROWS = 2_000  # records scored at a time: memory rows x d


def domain_draws(schema: PublicSchema, rows: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` codes drawn from the uniform law on the records the declared ``schema`` can encode, as the schema
    codes them (before its scaling onto its norm): each numeric column uniform over its coded range (its declared
    bounds on the column's scale, so a log-scaled column log-uniform), never missing; each categorical column one of
    its declared categories, equally likely; the constant feature 1. Public: the schema and ``rng``."""
    candidates, block = _candidates(schema)
    code = np.zeros((rows, schema.dimension))
    for index in sorted(set(block)):
        mine = [candidates[i] for i, column in enumerate(block) if column == index]
        column = schema.columns[index] if index < len(schema.columns) else None
        choices = mine[:1] if isinstance(column, NumericColumn) else [c for c in mine if c]  # value, not missing
        pick = rng.integers(0, len(choices), rows)
        for k, coordinates in enumerate(choices):
            chosen = np.flatnonzero(pick == k)
            for j, low, high in coordinates:
                code[chosen, j] = rng.uniform(low, high, chosen.size) if high > low else low
    return code


def domain_counts(model: Any, schema: PublicSchema | None, cut: Any = None) -> np.ndarray | None:
    """How many of :data:`DOMAIN_DRAWS` records of :func:`domain_draws` (seed :data:`DOMAIN_SEED`) a linear
    classifier predicts as each of its classes (in the order of ``classes_``), at ``cut`` (its own ``decision_cut``
    when None), scored as ``predict`` scores them (the schema's scaling onto its norm, then the release's row map): a
    binary release the class ``classes_[1]`` where w^T x + b > cut; a one-vs-rest release the class of the largest
    s_c - t_c, ties to the first. None without a schema or where the widths differ. Post-processing of the release
    and the public schema with a public seed: no privacy spent; the one draw :func:`domain_share` and
    :func:`domain_finding` read, for both kinds of release."""
    coef = np.asarray(getattr(model, "coef_", None))
    if (schema is None or coef.ndim not in (1, 2) or coef.dtype.kind not in "fiu" or not hasattr(model, "rows")
            or coef.shape[-1] != schema.dimension or getattr(model, "classes_", None) is None):
        return None
    k = 2 if coef.ndim == 1 else coef.shape[0]
    if len(np.asarray(model.classes_)) != k:
        return None
    raw = getattr(model, "decision_cut", 0.0) if cut is None else cut
    cuts = float(raw) if coef.ndim == 1 else np.broadcast_to(np.asarray(raw, dtype=float), (k,))
    rng = np.random.default_rng(DOMAIN_SEED)
    counts = np.zeros(k, dtype=np.int64)
    for first in range(0, DOMAIN_DRAWS, _DRAW_ROWS):
        code = domain_draws(schema, min(_DRAW_ROWS, DOMAIN_DRAWS - first), rng)
        scores = model.rows.scores(schema.onto_norm(code), coef) + model.intercept_
        predicted = (scores > cuts).astype(np.int64) if coef.ndim == 1 else np.argmax(scores - cuts, axis=1)
        counts += np.bincount(predicted, minlength=k)
    return counts


def _upper(count: int) -> float:
    """The 95 % upper bound of a share seen on ``count`` of :data:`DOMAIN_DRAWS` draws: the exact binomial
    (Clopper-Pearson) bound."""
    from scipy.stats import beta

    return float(beta.ppf(0.95, count + 1, DOMAIN_DRAWS - count)) if count < DOMAIN_DRAWS else 1.0


def domain_share(model: Any, schema: PublicSchema | None, cut: Any = None) -> tuple[Any, int, float] | None:
    """(the label of the class a binary linear release predicts less often, how many of :data:`DOMAIN_DRAWS` records
    of :func:`domain_draws` it predicts it on, the 95 % upper bound of that share: the exact binomial (Clopper-Pearson)
    bound), at ``cut`` (its own ``decision_cut`` when None) (:func:`domain_counts`); None without a schema, for a
    one-vs-rest release (:func:`domain_rare_classes`), or where the widths differ. Post-processing of the release and
    the public schema with a public seed: no privacy spent."""
    if np.asarray(getattr(model, "coef_", None)).ndim != 1:
        return None
    counts = domain_counts(model, schema, cut)
    if counts is None:
        return None
    index = 1 if counts[1] <= counts[0] else 0
    count = int(counts[index])
    return np.asarray(model.classes_).tolist()[index], count, _upper(count)


def domain_rare_classes(model: Any, schema: PublicSchema | None, cut: Any = None) -> list[tuple[Any, int, float]]:
    """Each class a one-vs-rest linear release predicts on a share of :func:`domain_counts`' records whose 95 % upper
    bound (:func:`_upper`) is below :data:`DOMAIN_SHARE`: (its label, its count, that bound), in the order of
    ``classes_``; [] for a binary release (:func:`domain_share`), without a schema, or where the widths differ. The
    binary rule's share, bound and law, class by class. Public: the schema, the row map, the weights, the cuts."""
    if np.asarray(getattr(model, "coef_", None)).ndim != 2:
        return []
    counts = domain_counts(model, schema, cut)
    if counts is None:
        return []
    labels = np.asarray(model.classes_).tolist()
    found = [(labels[i], int(c), _upper(int(c))) for i, c in enumerate(counts)]
    return [item for item in found if item[2] < DOMAIN_SHARE]


#: What :func:`domain_finding` says the draws are: one text for a binary and a one-vs-rest release
_LAW = (f"of {DOMAIN_DRAWS:,} records drawn from a uniform law on the records the declared schema can encode (each "
        "numeric column uniform over its declared bounds on its scale, each category equally likely; a public seed)")
_NOT_YOURS = "Your records need not follow that law, so this does not measure the model on them"
_PUBLIC = "A public check of the schema and the released weights"


def domain_finding(model: Any, schema: PublicSchema | None, cut: Any = None) -> str | None:
    """The report's statement that a binary linear release predicts one class on almost all of a uniform law on its
    declared domain (:func:`domain_share`: the other class's share's 95 % bound below :data:`DOMAIN_SHARE`), or that
    a one-vs-rest release predicts some of its classes on almost none of it (:func:`domain_rare_classes`: each such
    class's share's 95 % bound below :data:`DOMAIN_SHARE`, the same draws and rule), else None.
    Not a verdict on the user's records, which need not follow that law (a record cluster in a corner of the domain
    can be where the other class is predicted), and said so: the release cannot see where they lie. On a 0.4 %
    positive table (an analyst probe, session 70, P2 finding 1) the default release predicted one class on every
    held-out row and the report said nothing: the proof over the domain (:func:`encodable_class`) found a positive
    record in a corner; the uniform law put 0 to 2 of 20,000 draws there. A 5-category KDD release (session 71, P8
    finding 2: accuracy 0.981, balanced accuracy 0.396) predicted only two of its classes on its held-out rows, which
    only a NOT PRIVATE warning said."""
    if np.asarray(getattr(model, "coef_", None)).ndim == 2:
        rare = domain_rare_classes(model, schema, cut)
        if not rare:
            return None
        named = ", ".join(f"{label!r} on {count} ({100 * bound:.3f} %)" for label, count, bound in rare)
        return (f"{len(rare)} of its {len(model.classes_)} classes over the declared domain: {_LAW}, the release "
                f"predicts {named} (each the count, then the 95 % upper bound of its share, below "
                f"{100 * DOMAIN_SHARE:g} %). {_NOT_YOURS}: a class named here may be predicted where they lie, or "
                "never (on benchmarks/multiclass_domain.py's 5-category KDD releases, every class predicted on no "
                "held-out row was named, and so was 'normal' in 6 of 9 fits, predicted on 20 % of those rows). "
                f"{_PUBLIC}")
    found = domain_share(model, schema, cut)
    if found is None or found[2] >= DOMAIN_SHARE:
        return None
    label, count, bound = found
    return (f"nearly one class over the declared domain: {_LAW}, the release predicts the class "
            f"{label!r} on {count} (95 % upper bound of the share: {100 * bound:.3f} %). {_NOT_YOURS}; but where "
            "this was checked (benchmarks/one_class_threshold.py's tables) every release it was said of predicted "
            "one class on almost every held-out row. If that class is rare and its rate is public, threshold= the "
            f"rate moves the cut (post-processing, no privacy spent). {_PUBLIC}")
