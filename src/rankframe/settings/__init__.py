"""The settings every layer reads: the keyword options (``options``), the ``convention=``
presets (``conventions``) and the library settings (``config``: ``set_option``)."""
