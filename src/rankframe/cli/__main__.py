"""``python -m rankframe.cli``."""

from rankframe.cli import main

raise SystemExit(main())
