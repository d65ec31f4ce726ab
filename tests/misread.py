"""A categorical value that is a declared category but for how the table was read (whitespace, letter case, leading
zeros, a whole float, a flag): a strict schema refuses it naming its first row, a non-strict one warns with the same
words (NOT PRIVATE, no row) and encodes it as the all-zero block, since a refusal there would be decided by one
record's value (docs/theory.md, section 30)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from dpcvx.data.preprocessing import NON_STRICT_ZEROS
from dpcvx.exceptions import InputError, UndeclaredCategoryWarning


@dataclass
class Named:
    value: str = ""  # the refusal's or the warning's text


@contextlib.contextmanager
def named(strict: bool, pattern: str) -> Iterator[Named]:
    """The block refused (``strict``) with a message matching ``pattern`` (a regular expression naming the first row
    as ", the first in row N "), or warned of with it, the row replaced by the non-strict schema's words."""
    found = Named()
    if strict:
        with pytest.raises(InputError, match=pattern) as refused:
            yield found
        found.value = str(refused.value)
        return
    shown = re.sub(r", the first\s+in row \d+ ", ", " + re.escape(NON_STRICT_ZEROS) + " ", pattern)
    assert shown != pattern, pattern  # the pattern names the row
    with pytest.warns(UndeclaredCategoryWarning, match=shown) as record:
        yield found
    shown_text = " ".join(str(warning.message) for warning in record)
    assert "NOT PRIVATE: this check read the rows" in shown_text
    found.value = shown_text.split(" NOT PRIVATE:")[0]  # the words about the column, as a refusal's
