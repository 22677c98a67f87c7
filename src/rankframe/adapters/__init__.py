"""Thin adapters between each frame library and the engine.

Each module turns its frame kind into :class:`rankframe._engine.FrameData` (validating it with
the pandera schemas of :mod:`rankframe.schemas`) and builds its own kind of output frame. No
ranking or metric logic lives here.
"""
