"""The settings every layer reads: the keyword options (``options``), the settings of the
statistics, built and checked once (``statistics``: ``Tests``, ``Intervals``), the
``convention=`` presets (``conventions``) and the library settings (``config``:
``set_option``)."""
