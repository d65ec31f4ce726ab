"""``python -m dpcvx ...``: the ``dpcvx`` command, for environments whose scripts are not on PATH."""

from .cli import main

raise SystemExit(main())
