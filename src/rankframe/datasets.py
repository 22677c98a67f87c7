"""Sample data embedded in the package, generated deterministically from a seed.

``recommendations()`` builds a small recommendation log in rankframe's long format: users
(the queries) in three segments, the items a catalogue offers them, two models' scores, a
graded judgment and when each user was served (a time column for ``every=`` windows).
Each model recommends only its top items per user; the other judged items keep a null score
for that model (judged but not retrieved), so recall and NDCG see what each model missed.
Everything is drawn with NumPy in whole arrays; no Python loop over users.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DEVICES", "GENRES", "SEGMENTS", "START", "WEAK_SLICE", "WEEKS", "recommendations"]

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


def recommendations(
    seed: int = 0,
    *,
    n_users: int = 300,
    n_candidates: int = 40,
    top_k: int = 20,
    n_items: int = 2_000,
    weak_slice: bool = False,
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
        Seed of the generator; equal seeds give equal frames.
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
        ``slices()`` to find. Drawn from a generator of their own (seeded by ``[seed,
        36]``), so the other columns, and ``model_b`` outside the slice, are those of
        ``weak_slice=False``.

    Returns
    -------
    pandas.DataFrame
        Columns ``user_id`` (str), ``segment`` (str: new, casual, power), ``item_id`` (str),
        ``model_a``, ``model_b`` (float64, null where the model did not recommend the item),
        ``relevant`` (int64 grade 0-3) and ``served_at`` (``datetime64[s, UTC]``: when the
        user was served, the same for every row of a user, within 8 weeks from Monday
        2024-01-01; new users come later in the period, power users earlier); with
        ``weak_slice=True``, then ``device`` and ``genre`` (str).

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
    if not 0 < top_k <= n_candidates <= n_items:
        msg = (
            "recommendations() needs 0 < top_k <= n_candidates <= n_items; got "
            f"top_k={top_k}, n_candidates={n_candidates}, n_items={n_items}."
        )
        raise ValueError(msg)
    rng = np.random.default_rng(seed)
    shape = (n_users, n_candidates)

    # distinct candidates per user: the first n_candidates of a random order of the catalogue
    # (argpartition of random keys, one row per user)
    keys = rng.random((n_users, n_items))
    candidates = np.argpartition(keys, n_candidates - 1, axis=1)[:, :n_candidates]

    segment = rng.choice(len(SEGMENTS), size=n_users, p=[0.3, 0.5, 0.2])
    # power users like more of what they are shown; new users are harder to serve
    taste = np.array([-0.4, 0.0, 0.4])[segment][:, None]
    affinity = rng.normal(size=shape) + taste
    grade = np.digitize(affinity, [1.3, 1.9, 2.5])  # 0 (most) to 3 (rare)

    noise_b = np.array([1.2, 0.9, 0.7])[segment][:, None]
    scores = {
        "model_a": np.round(affinity + rng.normal(scale=0.6, size=shape), 2),
        "model_b": np.round(affinity + rng.normal(size=shape) * noise_b, 2),
    }
    if weak_slice:  # a generator of its own: the other columns stay the seed's
        planted = np.random.default_rng([seed, 36])
        device = planted.choice(len(DEVICES), size=n_users, p=[0.5, 0.3, 0.2])
        genre = planted.choice(len(GENRES), size=n_users)
        weak = (np.array(DEVICES)[device] == WEAK_SLICE["device"]) & (
            np.array(GENRES)[genre] == WEAK_SLICE["genre"])
        noisy = np.round(0.3 * affinity + planted.normal(size=shape), 2)
        scores["model_b"] = np.where(weak[:, None], noisy, scores["model_b"])
    for name, score in scores.items():
        # rank within the user (descending); keep the score only for the top_k
        order = np.argsort(-score, axis=1, kind="stable")
        position = np.empty(shape, dtype=np.int64)
        np.put_along_axis(position, order, np.arange(n_candidates)[None, :], axis=1)
        scores[name] = np.where(position < top_k, score, np.nan)

    # each user is served once, within WEEKS weeks from START (UTC), to the second; new
    # users come later (the sample grows): a user's share u of the period is a uniform draw
    # raised to the power 0.6 (new), 1 (casual) or 1.5 (power). Drawn last, so that the
    # other columns are those of the seed without a time column.
    share = rng.random(n_users) ** np.array([0.6, 1.0, 1.5])[segment]
    seconds = np.floor(share * WEEKS * 7 * 86_400).astype(np.int64)
    served = np.datetime64(START, "s") + seconds.astype("timedelta64[s]")

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
    if weak_slice:
        frame["device"] = np.repeat(np.array(DEVICES)[device], n_candidates)
        frame["genre"] = np.repeat(np.array(GENRES)[genre], n_candidates)
        frame = frame.astype({"device": "str", "genre": "str"})
    return frame.astype({"user_id": "str", "segment": "str", "item_id": "str"})
