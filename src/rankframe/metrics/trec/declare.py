"""How trec_eval's measures are declared (:func:`declare`), and the example frame of their
docstrings."""

from __future__ import annotations

from rankframe.metrics.registry import CUTOFF, MetricDef, Param
from rankframe.settings.options import options_of

__all__ = ["EXAMPLE", "declare"]

#: The example frame of every measure's docstring: ranks a (rel), b (judged, not
#: relevant), c (unjudged), d (rel); e relevant, not retrieved. R = 3, N = 4, hits = 2, one
#: judged non-relevant.
EXAMPLE = """
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d", "e"],
    ...                    "score": [5, 4, 3, 2, None], "relevant": [1, 0, 0, 1, 1],
    ...                    "judged": [True, True, False, True, True]})
"""

_NONE = options_of()


def declare(
    name: str,
    compute: object,
    summary: str,
    doc: str,
    examples: str,
    *,
    trec_name: str | None = None,
    trec_cut: str | None = None,
    aliases: tuple[str, ...] = (),
    takes_k: bool = False,
    aggregate: str = "mean",
    param: Param | None = None,
    linear: bool = False,
    tie_average: object = None,
    depends_on_relevant: bool = True,
    reads_unjudged: bool = False,
    bounded: bool = True,
    rank_free: bool = False,
) -> MetricDef:
    """The declaration of one measure: it takes no option beyond the common ones, and its
    examples run on :data:`EXAMPLE`'s frame. ``linear``: its value does not depend on the
    order of tied rows or is linear in hits@k (as the lists give it under
    ``ties="average"``), so ``compute`` is also its tie-averaged form.
    ``depends_on_relevant``: ``False`` for a count or a measure of the judgments alone,
    which ``empty=`` leaves alone. ``reads_unjudged``: it tells an unjudged row from a judged
    non-relevant one. ``bounded``: ``False`` for a value not in [0, 1] (a
    count, ``utility``). ``rank_free``: a count over the whole list, which reads no rank, so
    that ranks tied rows share (``ties="truncated_average"``, ``MetricDef.shared_ranks``) give
    it the same value; the others read one position per row, as trec_eval ranks."""
    return MetricDef(
        name=name,
        aliases=aliases,
        trec_name=trec_name,
        trec_cut=trec_cut,
        takes_k=takes_k,
        options=_NONE,
        compute=compute,  # type: ignore[arg-type]
        summary=summary,
        doc=doc,
        examples=EXAMPLE + examples,
        aggregate=aggregate,
        param=CUTOFF if param is None else param,
        tie_average=compute if linear else tie_average,  # type: ignore[arg-type]
        depends_on_relevant=depends_on_relevant,
        reads_unjudged=reads_unjudged,
        bounded=bounded,
        shared_ranks=rank_free,
    )
