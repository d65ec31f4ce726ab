"""Labels -1/+1 held as one bit a row (:class:`dpcvx.validation.SignBits`): their parts are the one-byte labels,
their refusals those of the labels, and a fit of rows read by blocks takes them (issue 44; the fits' memory:
tests/models/test_memmap_label_memory.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.exceptions import InputError
from dpcvx.models import erm_inputs
from dpcvx.validation import LABEL_CHUNK, SignBits, check_labels, one_vs_rest_signs


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1000, LABEL_CHUNK + 13])
def test_parts_of_the_bits_are_the_one_byte_labels(n: int) -> None:
    y = np.random.default_rng(n).integers(0, 2, size=n)
    bits, signs = check_labels(y, n, (0, 1), packed=True), check_labels(y, n, (0, 1), np.int8)
    assert isinstance(bits, SignBits) and bits.shape == (n,) and bits.bits.nbytes == (n + 7) // 8
    whole = np.asarray(bits)
    assert whole.dtype == np.int8
    np.testing.assert_array_equal(whole, signs)
    for start in sorted({0, 1, 5, 8, n // 3, n - 1}):
        for stop in sorted({start, start + 1, start + 9, n // 2, n}):
            np.testing.assert_array_equal(bits[start:stop], signs[start:stop])
    for rows in (np.arange(0, n, 3), np.array([n - 1, 0, n // 2]), np.array([-1]), np.array([], dtype=np.intp)):
        np.testing.assert_array_equal(bits[rows], signs[rows])
    np.testing.assert_array_equal(bits[::64], signs[::64])
    assert bits.positives() == int(np.count_nonzero(y))
    with pytest.raises(IndexError):
        bits[np.array([n])]


@pytest.mark.parametrize(("y", "classes"), [
    (np.array(["no", "yes", "yes", "no", "yes"] * 3), ("no", "yes")),
    (np.array([True, False, False, True, True] * 3), (False, True)),
    (np.array([-1, 1, 1, -1, 1] * 3), (-1, 1)),
    (np.array([0.0, 1.0, 1.0, 0.0, 1.0] * 3), (0, 1)),
    ([1, 0, 0, 1, 1] * 3, (0, 1)),
])
def test_bits_and_refusals_are_those_of_the_labels(y: Any, classes: tuple[Any, Any]) -> None:
    n = len(y)
    np.testing.assert_array_equal(np.asarray(check_labels(y, n, classes, packed=True)),
                                  check_labels(y, n, classes, np.int8))
    np.testing.assert_array_equal(np.asarray(one_vs_rest_signs(y, n, classes[1])),
                                  check_labels(y, n, classes, np.int8))
    wrong = list(np.asarray(y))
    wrong[4] = "maybe" if isinstance(wrong[0], str) else 7
    messages = []
    for packed in (False, True):
        with pytest.raises(InputError, match="1 label\\(s\\), the first at row 4 \\(their values are not shown") as e:
            check_labels(np.asarray(wrong), n, classes, packed=packed)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    with pytest.raises(InputError, match="X has 16 rows but y has 15 labels"):
        check_labels(y, 16, classes, packed=True)


def test_a_memmap_fit_takes_labels_as_bits(uniform_memmap: Callable[..., np.ndarray]) -> None:
    X = uniform_memmap(1000, 2)
    y = (X[:, 0] > 0).astype(int)
    mapped, labels = erm_inputs.mapped_data(RowMap(norm_bound=1.0), X, y, (0, 1), None, True)
    assert isinstance(mapped, RowBlocks) and isinstance(labels, SignBits)
    np.testing.assert_array_equal(np.asarray(labels), np.where(y == 1, 1, -1))
    _, in_memory = erm_inputs.mapped_data(RowMap(norm_bound=1.0), np.asarray(X), y, (0, 1), None, True)
    assert isinstance(in_memory, np.ndarray) and in_memory.dtype == np.float64  # rows in memory: as before


def test_the_labels_of_a_memmap_fit_are_an_eighth_of_a_byte_a_row(uniform_memmap: Callable[..., np.ndarray],
                                                                  traced_peak: Callable[..., tuple[Any, int]]) -> None:
    n = 300_000
    X = uniform_memmap(n, 1)
    y = (X[:, 0] > 0).astype(np.int64)
    mapped = RowBlocks(X, RowMap(norm_bound=1.0))
    labels, peak = traced_peak(erm_inputs.fit_labels, (0, 1), None, y, mapped, True)
    assert isinstance(labels, SignBits)
    assert peak < n / 8 + 8 * LABEL_CHUNK  # the bits and a chunk's comparisons (n bytes and more before)
