"""The header every model record starts with: the format's name and the versions this library reads."""

from __future__ import annotations

MODEL_FORMAT = "dpcvx-model"
MODEL_FORMAT_VERSION = 4
# version 2: linear releases written before the kernel kind existed; version 3: before the calibration
# records gained their floating-point fields (read through release/records/migrate.py)
READABLE_VERSIONS = (2, 3, 4)
MIGRATED_VERSIONS = (2, 3)
KINDS = ("linear", "kernel", "multiclass", "regression")
