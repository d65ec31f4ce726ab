"""``python -m dpcvx.cli ...``: the ``dpcvx`` command."""

from . import main

raise SystemExit(main())
