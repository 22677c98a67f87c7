"""Thin adapters between each frame library and the engine.

Each module turns its frame kind into :class:`rankframe.engine.FrameData` (validating it with
the facts of :mod:`rankframe.pipeline.validation`) and builds its own kind of output frame. No
ranking, metric or validation logic lives here.
"""
