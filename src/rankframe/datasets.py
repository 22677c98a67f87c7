"""Sample data embedded in the package, generated deterministically from a seed.

``recommendations()`` builds a small recommendation log in rankframe's long format: users
(the queries) in three segments, the items a catalogue offers them, two models' scores, a
graded judgment and when each user was served (a time column for ``every=`` windows).
Each model recommends only its top items per user; the other judged items keep a null score
for that model (judged but not retrieved), so recall and NDCG see what each model missed.
Everything is drawn in whole arrays; no Python loop over users.

The same seed gives the same frame, byte for byte, on every supported NumPy: every draw is
derived from integers, never from NumPy's ``Generator``, whose algorithms (and
``argpartition``'s order) may change between releases. The random bits are SplitMix64's
(Steele, Lea & Flood 2014; Vigna's reference ``splitmix64.c``) in ``uint64`` arithmetic, which
wraps modulo 2**64 as C does: one stream per purpose, numbered 0 to 10 (the candidates, the
segments, the affinity, model_a's and model_b's noise, the time, ``weak_slice``'s device,
genre and noise, and ``judge``'s noise and sample of users), stream ``j`` starting from the
state that is the ``(j + 1)``-th output of SplitMix64 seeded with ``seed``.
From those bits, only exact operations: uniform fractions ``(bits >> 11) * 2**-53``,
comparisons with thresholds, stable sorts, integer sums, and normal noise as the sum of 12
uniform 32-bit fractions minus 6 (Irwin-Hall: mean 0, variance 1, within +-6), an exact
multiple of 2**-32. Scores are rounded to hundredths by ``rint(x * 100) / 100``: IEEE
additions, products and quotients, correctly rounded on every platform.
``tests/cli/test_datasets_cli.py`` pins the frame's SHA-256 and rederives it in pure Python.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "DEVICES",
    "GENRES",
    "JUDGE_BIAS",
    "JUDGE_NOISE",
    "PEOPLE_SHARE",
    "SEGMENTS",
    "START",
    "WEAK_SLICE",
    "WEEKS",
    "recommendations",
]

SEGMENTS = ("new", "casual", "power")
"""The user segments of ``recommendations()``."""
DEVICES = ("web", "ios", "android")
"""The devices of ``recommendations(weak_slice=True)`` (half, 30% and 20% of the users)."""
GENRES = ("news", "sport", "music", "film")
"""The genres of ``recommendations(weak_slice=True)`` (a quarter of the users each)."""
WEAK_SLICE = {"device": "android", "genre": "music"}
"""Where ``recommendations(weak_slice=True)``'s ``model_b`` fails: its scores of these users
barely follow the affinity."""
START = "2024-01-01T00:00:00"
"""The first instant of ``recommendations()``'s ``served_at`` (UTC; a Monday)."""
WEEKS = 8
"""The weeks over which ``recommendations()`` serves its users."""
JUDGE_BIAS = 0.3
"""What ``recommendations(judge=True)``'s judge adds to the hidden affinity before grading."""
JUDGE_NOISE = 0.5
"""The standard deviation of the normal noise ``recommendations(judge=True)``'s judge adds."""
PEOPLE_SHARE = 0.2
"""The share of the users whose every row people judged in ``recommendations(judge=True)``."""


#: The streams of random bits, one per purpose (stream ``j``: see the module docstring).
_CANDIDATES, _SEGMENT, _AFFINITY, _NOISE_A, _NOISE_B, _TIME, _DEVICE, _GENRE, _PLANTED = range(9)
_JUDGE, _PEOPLE = 9, 10  # judge=True: the judge's noise, the users people judged

_GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's increment: 2**64 / the golden ratio, odd
_MASK = 2**64 - 1
_IRWIN_HALL = 12  # uniform draws per normal draw


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (Stafford's variant 13) on ``uint64`` values."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.asarray(z ^ (z >> np.uint64(31)))


def _splitmix64(state: int, n: int) -> np.ndarray:
    """The ``n`` outputs of SplitMix64 from ``state``: ``mix(state + i * GAMMA)`` for ``i``
    in 1..n, modulo 2**64."""
    steps = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(_GAMMA)
    return _mix(steps + np.uint64(state))


class _Streams:
    """The streams of random bits of one seed; each stream read once."""

    def __init__(self, seed: int) -> None:
        self.states = [int(s) for s in _splitmix64(seed, _PEOPLE + 1)]

    def bits(self, stream: int, n: int) -> np.ndarray:
        return _splitmix64(self.states[stream], n)


def _normal(streams: _Streams, stream: int, shape: tuple[int, int]) -> np.ndarray:
    """Standard normal noise, approximately: the sum of 12 uniform 32-bit fractions minus 6
    (Irwin-Hall), exact in float64."""
    size = shape[0] * shape[1]
    bits = streams.bits(stream, _IRWIN_HALL * size) >> np.uint64(32)
    total = bits.reshape(size, _IRWIN_HALL).sum(axis=1, dtype=np.uint64)
    return np.asarray(total.astype(np.float64) * 2.0**-32 - 6.0).reshape(shape)


def _choice(bits: np.ndarray, bounds: tuple[float, ...]) -> np.ndarray:
    """A category per draw: how many of the cumulative ``bounds`` its uniform fraction
    ``(bits >> 11) * 2**-53`` reaches."""
    uniform = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return np.searchsorted(np.asarray(bounds), uniform, side="right").astype(np.int64)


def _hundredths(values: np.ndarray) -> np.ndarray:
    """Rounded to two decimals (half to even), as ``rint(x * 100) / 100``; ``+ 0.0`` makes
    a negative zero (``rint(-0.3)``) a zero."""
    return np.asarray(np.rint(values * 100.0) / 100.0 + 0.0)


def recommendations(
    seed: int = 0,
    *,
    n_users: int = 300,
    n_candidates: int = 40,
    top_k: int = 20,
    n_items: int = 2_000,
    weak_slice: bool = False,
    judge: bool = False,
) -> pd.DataFrame:
    """A deterministic recommendation log: one row per (user, candidate item).

    Each user has ``n_candidates`` distinct candidate items drawn from a catalogue of
    ``n_items``. A hidden affinity per (user, item) sets the judged grade (0 to 3, most items
    0). ``model_a`` scores the affinity with little noise, ``model_b`` with more; both round
    their scores to two decimals (so ties occur), and each keeps a score only for its own
    ``top_k`` items per user, leaving the rest null (judged but not recommended). Some users
    have no relevant item at all, as in real logs.

    Parameters
    ----------
    seed
        Seed of the random bits, an integer in [0, 2**64); equal seeds give equal frames,
        byte for byte, on every supported NumPy.
    n_users
        Number of users (the queries).
    n_candidates
        Judged candidate items per user.
    top_k
        Items each model recommends (scores) per user; the other candidates get a null score.
    n_items
        Size of the catalogue the candidates are drawn from.
    weak_slice
        Add two columns constant per user, ``device`` (``DEVICES``) and ``genre``
        (``GENRES``), and make ``model_b`` fail in one slice of them (``WEAK_SLICE``:
        android users of the music genre, about 5% of the users), where its score is
        0.3 x the affinity plus noise of standard deviation 1: a planted weakness for
        ``slices()`` to find. Drawn from streams of their own, so the other columns, and
        ``model_b`` outside the slice, are those of ``weak_slice=False``.
    judge
        Add two grade columns (``docs/judgments.md``): ``llm``, a simulated judge's grade
        (0 to 3) of every row, from the hidden affinity plus ``JUDGE_BIAS`` and normal
        noise of standard deviation ``JUDGE_NOISE``, cut where ``relevant`` is (a judge
        that grades higher than people, and errs); and ``human``, people's grade (the
        ``relevant`` grade) of every row of a sample of the users (each with probability
        ``PEOPLE_SHARE``), null elsewhere. Drawn from streams of their own: the other
        columns are those of ``judge=False``.

    Returns
    -------
    pandas.DataFrame
        Columns ``user_id`` (str), ``segment`` (str: new, casual, power), ``item_id`` (str),
        ``model_a``, ``model_b`` (float64, null where the model did not recommend the item),
        ``relevant`` (int64 grade 0-3) and ``served_at`` (``datetime64[s, UTC]``: when the
        user was served, the same for every row of a user, within 8 weeks from Monday
        2024-01-01; new users come later in the period, power users earlier); with
        ``weak_slice=True``, then ``device`` and ``genre`` (str); with ``judge=True``, then
        ``llm`` (int64) and ``human`` (float64, null where no person judged).

    Examples
    --------
    >>> import rankframe
    >>> from rankframe.datasets import recommendations
    >>> data = recommendations(seed=0)
    >>> data.columns.tolist()
    ['user_id', 'segment', 'item_id', 'model_a', 'model_b', 'relevant', 'served_at']
    >>> str(data["served_at"].dtype)
    'datetime64[s, UTC]'
    >>> ev = data.rank_eval(query="user_id", item="item_id", score="model_a")
    >>> 0.0 < ev.mrr(k=10) < 1.0
    True
    """
    _check_arguments(seed, top_k, n_candidates, n_items)
    streams = _Streams(int(seed))
    shape = (n_users, n_candidates)
    candidates = _candidates(streams, n_users, n_candidates, n_items)
    segment = _choice(streams.bits(_SEGMENT, n_users), (0.3, 0.8))  # 30%, 50%, 20%
    affinity = _affinity(streams, segment, shape)
    scores = _scores(streams, segment, affinity)
    users: dict[str, np.ndarray] = {}  # the columns constant per user of weak_slice=True
    if weak_slice:  # streams of their own: the other columns stay the seed's
        scores["model_b"], users = _weak_slice(streams, affinity, scores["model_b"])
    recommended = {name: _top_k(score, top_k) for name, score in scores.items()}
    grade = np.digitize(affinity, _GRADES)  # 0 (most) to 3 (rare)
    served = _served_at(streams, segment)
    frame = _log(segment, candidates, recommended, grade, served, n_items, users)
    if judge:
        frame["llm"], frame["human"] = _judged(streams, affinity, grade)
    return frame


#: The affinities at which the grade steps up to 1, 2 and 3.
_GRADES = (1.3, 1.9, 2.5)


def _judged(
    streams: _Streams, affinity: np.ndarray, grade: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``judge=True``'s columns, a value per row: the judge's grade (the affinity plus
    ``JUDGE_BIAS`` and ``JUDGE_NOISE`` x normal noise, cut at the grades' thresholds) and
    people's (the grade on the users a uniform draw below ``PEOPLE_SHARE`` picks, NaN
    elsewhere)."""
    noisy = affinity + JUDGE_BIAS + JUDGE_NOISE * _normal(streams, _JUDGE, affinity.shape)
    judged = np.digitize(noisy, _GRADES).astype(np.int64)
    picked = _choice(streams.bits(_PEOPLE, affinity.shape[0]), (PEOPLE_SHARE,)) == 0
    people = np.where(picked[:, None], grade.astype(np.float64), np.nan)
    return judged.ravel(), people.ravel()


def _check_arguments(seed: int, top_k: int, n_candidates: int, n_items: int) -> None:
    """The sizes in order (``0 < top_k <= n_candidates <= n_items``) and the seed in
    [0, 2**64), else a ``ValueError`` that names them."""
    if not 0 < top_k <= n_candidates <= n_items:
        msg = (
            "recommendations() needs 0 < top_k <= n_candidates <= n_items; got "
            f"top_k={top_k}, n_candidates={n_candidates}, n_items={n_items}."
        )
        raise ValueError(msg)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not (0 <= seed < 2**64):
        msg = f"recommendations() needs a seed in [0, 2**64); got seed={seed!r}."
        raise ValueError(msg)


def _candidates(streams: _Streams, n_users: int, n_candidates: int, n_items: int) -> np.ndarray:
    """Each user's distinct candidates (item codes, users x candidates): the first
    ``n_candidates`` of an order of the catalogue by random keys (a stable sort: ties, if
    any, in item order)."""
    keys = streams.bits(_CANDIDATES, n_users * n_items).reshape(n_users, n_items)
    return np.argsort(keys, axis=1, kind="stable")[:, :n_candidates]


def _affinity(streams: _Streams, segment: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The hidden affinity per (user, candidate): normal noise shifted by the user's
    segment (power users like more of what they are shown; new users are harder to
    serve)."""
    taste = np.array([-0.4, 0.0, 0.4])[segment][:, None]
    return np.asarray(_normal(streams, _AFFINITY, shape) + taste)


def _scores(streams: _Streams, segment: np.ndarray, affinity: np.ndarray) -> dict[str, np.ndarray]:
    """The two models' scores of every candidate, in hundredths: ``model_a`` the affinity
    with little noise, ``model_b`` with more, most for new users."""
    shape = (affinity.shape[0], affinity.shape[1])
    noise_b = np.array([1.2, 0.9, 0.7])[segment][:, None]
    return {
        "model_a": _hundredths(affinity + 0.6 * _normal(streams, _NOISE_A, shape)),
        "model_b": _hundredths(affinity + _normal(streams, _NOISE_B, shape) * noise_b),
    }


def _weak_slice(
    streams: _Streams, affinity: np.ndarray, model_b: np.ndarray
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The planted weakness of ``weak_slice=True``: ``model_b``'s scores, in
    ``WEAK_SLICE``'s users 0.3 x the affinity plus noise of standard deviation 1 (in
    hundredths); and each user's ``device`` (``DEVICES``: 50%, 30%, 20%) and ``genre``
    (``GENRES``, a quarter each)."""
    n_users = affinity.shape[0]
    device = _choice(streams.bits(_DEVICE, n_users), (0.5, 0.8))
    genre = (streams.bits(_GENRE, n_users) >> np.uint64(62)).astype(np.int64)
    weak = (np.array(DEVICES)[device] == WEAK_SLICE["device"]) & (
        np.array(GENRES)[genre] == WEAK_SLICE["genre"]
    )
    noisy = _hundredths(0.3 * affinity + _normal(streams, _PLANTED, affinity.shape))
    users = {"device": np.array(DEVICES)[device], "genre": np.array(GENRES)[genre]}
    return np.asarray(np.where(weak[:, None], noisy, model_b)), users


def _top_k(score: np.ndarray, top_k: int) -> np.ndarray:
    """The scores a model keeps: its ``top_k`` per user (by rank within the user,
    descending; a stable sort), the others null."""
    order = np.argsort(-score, axis=1, kind="stable")
    position = np.empty(score.shape, dtype=np.int64)
    np.put_along_axis(position, order, np.arange(score.shape[1])[None, :], axis=1)
    return np.asarray(np.where(position < top_k, score, np.nan))


def _served_at(streams: _Streams, segment: np.ndarray) -> np.ndarray:
    """When each user is served: once, within ``WEEKS`` weeks from ``START`` (UTC), to the
    second. New users come later (the sample grows): a user's share of the period is the
    larger of two uniform draws (new), one draw (casual) or the smaller of two (power), in
    32-bit fractions of the period."""
    first = streams.bits(_TIME, 2 * len(segment)).reshape(len(segment), 2) >> np.uint64(32)
    share = np.choose(segment, [first.max(axis=1), first[:, 0], first.min(axis=1)])
    seconds = ((share * np.uint64(WEEKS * 7 * 86_400)) >> np.uint64(32)).astype(np.int64)
    return np.asarray(np.datetime64(START, "s") + seconds.astype("timedelta64[s]"))


def _log(
    segment: np.ndarray,
    candidates: np.ndarray,
    scores: dict[str, np.ndarray],
    grade: np.ndarray,
    served: np.ndarray,
    n_items: int,
    users: dict[str, np.ndarray],
) -> pd.DataFrame:
    """The log, a row per (user, candidate): the ids, the segment, the scores, the grade,
    the time, then ``users``' columns (a value per user: ``device``, ``genre``)."""
    n_users, n_candidates = candidates.shape
    user_ids = np.char.add("u", np.char.zfill(np.arange(1, n_users + 1).astype(str), 4))
    item_ids = np.char.add("i", np.char.zfill(np.arange(1, n_items + 1).astype(str), 5))
    frame = pd.DataFrame(
        {
            "user_id": np.repeat(user_ids, n_candidates),
            "segment": np.repeat(np.array(SEGMENTS)[segment], n_candidates),
            "item_id": item_ids[candidates.ravel()],
            "model_a": scores["model_a"].ravel(),
            "model_b": scores["model_b"].ravel(),
            "relevant": grade.ravel().astype(np.int64),
            "served_at": pd.DatetimeIndex(np.repeat(served, n_candidates)).tz_localize("UTC"),
        }
    )
    for name, values in users.items():
        frame[name] = np.repeat(values, n_candidates)
    if users:
        frame = frame.astype(dict.fromkeys(users, "str"))
    return frame.astype({"user_id": "str", "segment": "str", "item_id": "str"})
