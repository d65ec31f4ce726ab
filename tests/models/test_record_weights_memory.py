"""A fit's record weights with class weights are one float64 n-vector: the class weights are multiplied into it a
chunk of labels at a time. Before, the labels unpacked whole, the class weight of each and their product with the
unit weights were held beside it (2.1 times a 10,000,000 x 1 memmap in its fit, 1.04 now; issue 44). The weights
are the same numbers."""

from __future__ import annotations

import numpy as np
import pytest

from dpcvx.models.record_weights import RecordWeights, record_weights
from dpcvx.validation import SignBits, check_labels

N = 1_000_003  # not a whole number of chunks


@pytest.fixture(scope="module")
def labels() -> np.ndarray:
    return np.where(np.random.default_rng(0).random(N) < 0.3, 1, -1)


def _before(plan: RecordWeights, given: np.ndarray | None, labels: np.ndarray) -> np.ndarray:
    """The weights as the whole computation gave them."""
    weights = np.ones(N) if given is None else np.clip(given, 0.0, plan.sample_bound)
    (_, negative), (_, positive) = plan.class_weights
    return weights * np.where(labels > 0, positive, negative)


def test_class_weights_of_bits_hold_one_n_vector(labels, traced_peak):
    signs = check_labels(labels, N, (-1, 1), packed=True)
    assert isinstance(signs, SignBits)
    plan = RecordWeights("dict", ((-1, 0.7), (1, 2.5)))
    record_weights(plan, None, signs[:1000], 1000)  # numpy's first-call allocations
    weights, peak = traced_peak(record_weights, plan, None, signs, N)
    assert peak < 1.1 * 8 * N, f"{peak / 1e6:.2f} MB for {8 * N / 1e6:.1f} MB of weights"
    assert np.array_equal(weights, _before(plan, None, labels))


@pytest.mark.parametrize("packed", [False, True])
def test_the_weights_are_the_same_numbers(labels, packed):
    given = np.random.default_rng(1).uniform(-0.5, 3.0, N)
    signs = check_labels(labels, N, (-1, 1), packed=packed)
    plan = RecordWeights("dict", ((-1, 1.0 / 3.0), (1, 1.7)), sample_bound=2.0)
    with pytest.warns(Warning, match="clipped"):
        weights = record_weights(plan, given, signs, N)
    assert np.array_equal(weights, _before(plan, given, labels))
    zero = RecordWeights("dict", ((-1, 0.0), (1, 1.0)))  # all zero: no refusal (a statistic of the labels)
    assert not np.any(record_weights(zero, None, check_labels(-np.ones(N), N, (-1, 1), packed=packed), N))
