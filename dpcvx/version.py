"""The installed dpcvx version (recorded in every release certificate)."""

__version__ = "0.1.0"
