"""The version of rankframe, in one place (read by the package, the report and the history
store)."""

__version__ = "0.1.0"
