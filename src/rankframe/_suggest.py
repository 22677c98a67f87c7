"""Did-you-mean: the names most like a misspelt one, and the hint that offers them.

One place for every suggestion of the library (metric names, options, keywords, settings,
trec_eval measures, columns); it imports nothing of rankframe, so any module can use it.
Two rules, each kept as its messages have always been:

* :func:`closest`: every candidate about as close as the best one (up to three), ties in
  the candidates' order, for the lists of names;
* :func:`closest_one`: :func:`difflib.get_close_matches` with ``n=1`` (ties go to the
  candidate that sorts last), for a choice among a few values and for a column;
  :func:`closest_choice` tries the value in another case, and the common names of a
  choice (``"BH"`` for ``fdr_bh``), first.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["closest", "closest_choice", "closest_one", "did_you_mean"]


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.5) -> list[str]:
    """The candidates most like ``word``: difflib's close matches, keeping only those about
    as close as the best one (``"mmr"`` gives ``mrr``, not ``mrr`` and ``r``)."""
    scored = []
    matcher = difflib.SequenceMatcher(None, word)
    for candidate in dict.fromkeys(candidates):
        matcher.set_seq2(candidate)
        # the quick ratios are upper bounds of the ratio (get_close_matches' own test)
        if matcher.real_quick_ratio() < cutoff or matcher.quick_ratio() < cutoff:
            continue
        ratio = matcher.ratio()
        if ratio >= cutoff:
            scored.append((ratio, candidate))
    if not scored:
        return []
    best = max(r for r, _ in scored)
    return [c for r, c in sorted(scored, key=lambda rc: -rc[0]) if r >= best - 0.1][:3]


def closest_one(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> list[str]:
    """The one candidate most like ``word`` (``difflib.get_close_matches(n=1)``), or none."""
    return difflib.get_close_matches(word, list(candidates), n=1, cutoff=cutoff)


def closest_choice(
    word: str, candidates: Sequence[str], aliases: Mapping[str, str] | None = None
) -> list[str]:
    """The one choice ``word`` most likely means: the candidate equal to it in another case
    (``"Holm"``: ``holm``), the one a common name stands for (``aliases``, keys in lower
    case with ``_`` for spaces and hyphens: ``{"bh": "fdr_bh"}``), else
    :func:`closest_one` of the word as written, then in lower case."""
    folded = word.strip().lower()
    same = [c for c in candidates if c.lower() == folded]
    if same:
        return same[:1]
    meant = (aliases or {}).get(folded.replace("-", "_").replace(" ", "_"))
    if meant is not None and meant in candidates:
        return [meant]
    return closest_one(word, candidates) or closest_one(folded, candidates)


def did_you_mean(suggestions: Sequence[str]) -> str:
    """``" Did you mean 'a', 'b'?"`` (with its leading space), or ``""`` for no suggestion."""
    return f" Did you mean {', '.join(map(repr, suggestions))}?" if suggestions else ""
