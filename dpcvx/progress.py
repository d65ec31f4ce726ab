"""Progress of long steps (fits, tuning candidates, passes over X), shown only when asked for.

What a progress line may show: counts of steps ("candidate 3/8", "pass 4") and
elapsed time, never a value measured on private data (no objective value,
residual or accuracy). Some counts are public (the candidates of split tuning,
the command line's four steps); others follow the data: the solver's passes
over a block-read X (how many Newton needs), the runs of full-data tuning. A
bar is the data owner's view of their own fit, on their terminal: NOT PRIVATE,
never written into a release, a file or a log. Quiet by default: library calls
pass ``verbose=False`` unless the user asks.

API::

    with progress(total=8, description="dpcvx.tune", unit="candidate", verbose=True) as bar:
        for ...:
            bar.update()          # one step done

``progress`` returns a tqdm bar on stderr when ``verbose`` is true, stderr is a
terminal and tqdm is installed (the ``progress`` extra), else a silent
:class:`NoProgress` (so logs and pipes never fill with bar redraws).
``total`` may be None for an open-ended count (Newton passes).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol

__all__ = ["Progress", "NoProgress", "progress"]


class Progress(Protocol):
    def update(self, count: int = 1) -> Any: ...

    def close(self) -> Any: ...

    def __enter__(self) -> Progress: ...

    def __exit__(self, *exc: object) -> Any: ...


class NoProgress:
    """Shows nothing."""

    def update(self, count: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(total: int | None, description: str, *, unit: str = "step", verbose: bool = False) -> Progress:
    """A tqdm bar on stderr counting steps if ``verbose``, stderr is a terminal and tqdm is
    installed; else silent."""
    isatty = getattr(sys.stderr, "isatty", None)
    if not (verbose and callable(isatty) and isatty()):
        return NoProgress()
    try:
        from tqdm import tqdm
    except ImportError:
        return NoProgress()
    bar: Progress = tqdm(total=total, desc=description, unit=unit, file=sys.stderr, leave=False)
    return bar
