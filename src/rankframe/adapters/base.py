"""The protocol the adapters implement, :class:`FrameAdapter`: declared by the data path
(:mod:`rankframe.pipeline.contract`), kept here under its old import path."""

from rankframe.pipeline.contract import FrameAdapter

__all__ = ["FrameAdapter"]
