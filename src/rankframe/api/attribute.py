"""``frame.rank_eval`` as the frame libraries hold it (``rankframe.adapters.register`` puts it
on their frames): :func:`rank_eval_attribute` gives a frame its accessor, a
:class:`~rankframe.api.accessor.RankEval`. ``import rankframe`` imports this module alone of
the public API: the accessor's module, and with it the frame libraries and the engine, loads
at the first ``frame.rank_eval``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankframe.api.accessor import RankEval

__all__ = ["rank_eval_attribute"]


def rank_eval_attribute(frame: Any) -> RankEval[Any, Any, Any]:
    """``frame.rank_eval``: the accessor of ``frame``."""
    # the accessor's module imports pandas, polars, pyarrow and the engine (0.9 s): only
    # once a frame's accessor is read
    from rankframe.api.accessor import RankEval

    return RankEval(frame)
