"""Print pip constraints that pin every requirement of pyproject.toml at its declared lower bound.

    python .ci/minimum_constraints.py [EXTRA ...] > constraints.txt
    pip install -c constraints.txt ".[EXTRA,...]"

The core dependencies and the named extras' requirements ``name>=X`` become ``name==X``: installing
with these constraints tests that the declared lower bounds are true (.ci/run's minimum-versions job).
Needs Python >= 3.11 (tomllib).
"""

import re
import sys
import tomllib
from pathlib import Path

LOWER_BOUND = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*>=\s*([0-9][0-9A-Za-z.]*)")

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
requirements = list(project["dependencies"])
for extra in sys.argv[1:]:
    requirements += project["optional-dependencies"][extra]
for requirement in requirements:
    match = LOWER_BOUND.match(requirement)
    if match:
        print(f"{match.group(1)}=={match.group(3)}")
