"""BOTTOM: the package version (one place; the CLI, reports and the cache key read it)."""

__version__ = "0.1.0"
