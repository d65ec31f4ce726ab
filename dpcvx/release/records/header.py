"""The header every model record starts with: the format's name and the versions this library reads."""

from __future__ import annotations

MODEL_FORMAT = "dpcvx-model"
MODEL_FORMAT_VERSION = 3
READABLE_VERSIONS = (2, 3)  # version 2: linear releases written before the kernel kind existed
KINDS = ("linear", "kernel", "multiclass", "regression")
