"""Writing a user's CSV file for the command line's tests (imported by name: pytest puts this directory on the path)."""

from __future__ import annotations

import csv
from pathlib import Path


def write(path: Path, header: list[str], rows: list[list]) -> str:
    """Write ``header`` and ``rows`` to ``path`` as a CSV file; return the path as text."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)
