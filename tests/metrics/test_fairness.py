"""Fairness of exposure (exposure, exposure_ratio, exposure_gap, awrf; issue 37) on every
frame kind.

References: three-item rankings worked out by hand below (the arithmetic in the comments);
a brute force written here from the formulas of docs/fairness.md (each query's top-k list
sorted in Python, one query at a time); FairRankTune 0.0.7's ``EXP`` (the log browsing
model's group totals), ``AWRF`` (geometric attention, RBP's with patience 1 - p) and
``NDKL``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from FairRankTune.Metrics import AWRF, EXP, NDKL
from scipy.spatial.distance import jensenshannon

from helpers import FrameMaker, as_float, as_pandas, collect
from rankframe import ColumnNotFoundError, InvalidDataError, InvalidOptionError

# -- the worked example ------------------------------------------------------------------------

# One query, ranked a, b, c: a in group x with grade 2, b in y with grade 0, c in y with
# grade 1. Relevant: a, c.
EXAMPLE = {
    "query": ["q"] * 3,
    "item": ["a", "b", "c"],
    "score": [3.0, 2.0, 1.0],
    "relevant": [2, 0, 1],
}
GROUPS = {"a": "x", "b": "y", "c": "y"}

# log: attention 1/log2(2) = 1, 1/log2(3) = 0.6309298, 1/log2(4) = 0.5; total 2.1309298.
LOG = [1.0, 1 / math.log2(3), 0.5]
E_X = 1 / sum(LOG)  # 0.4692787
E_Y = (LOG[1] + LOG[2]) / sum(LOG)  # 0.5307213
# merit: grades 2 (x) and 1 (y) of 3: M_x = 2/3, M_y = 1/3


def run(frame: Any, call: Any) -> Any:
    return collect(call(frame.rank_eval))


def value(frame: Any, metric: str, **options: Any) -> float:
    """One metric of ``evaluate`` (by its label) from any frame kind."""
    table = as_pandas(frame.rank_eval.evaluate([metric.split("(")[0]], **options))
    return float(table[metric].iloc[0])


def test_exposure_by_hand(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    # log: x holds rank 1, 1 / 2.1309298 = 0.4692787; y the rest, 0.5307213
    got = as_pandas(frame.rank_eval.evaluate(["exposure@3"], item_groups=GROUPS))
    assert list(got.columns) == ["exposure@3(group=x)", "exposure@3(group=y)", "n_queries"]
    assert got["exposure@3(group=x)"].iloc[0] == pytest.approx(0.4692787, abs=1e-7)
    assert got["exposure@3(group=y)"].iloc[0] == pytest.approx(0.5307213, abs=1e-7)
    # rbp, patience 0.5: attention 1, 0.5, 0.25; x: 1 / 1.75 = 0.571429
    rbp = {"browsing": "rbp", "patience": 0.5}
    assert as_float(
        run(frame, lambda ev: ev.exposure(3, item_groups=GROUPS, group="x", **rbp))
    ) == pytest.approx(4 / 7)
    # cascade, stop 0.5: rank 1 has nothing above (1); ranks 2 and 3 have one relevant item
    # above (a): 0.5 each; total 2; x: 1/2. With stop 1 the user never passes a: x gets 1.
    cascade = {"browsing": "cascade", "stop": 0.5}
    assert as_float(
        run(frame, lambda ev: ev.exposure(3, item_groups=GROUPS, group="x", **cascade))
    ) == pytest.approx(0.5)
    assert as_float(
        run(
            frame,
            lambda ev: ev.exposure(3, item_groups=GROUPS, group="x", browsing="cascade", stop=1.0),
        )
    ) == pytest.approx(1.0)
    # cut at k = 1: only a is seen, x takes everything
    assert as_float(run(frame, lambda ev: ev.exposure(1, item_groups=GROUPS, group="y"))) == 0.0


def test_exposure_ratio_and_gap_by_hand(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    # ratio x: 0.4692787 / (2/3) = 0.7039181; y: 0.5307213 / (1/3) = 1.5921639
    got = as_pandas(
        frame.rank_eval.evaluate(["exposure_ratio@3", "exposure_gap@3"], item_groups=GROUPS)
    )
    assert got["exposure_ratio@3(group=x)"].iloc[0] == pytest.approx(0.7039181, abs=1e-7)
    assert got["exposure_ratio@3(group=y)"].iloc[0] == pytest.approx(1.5921639, abs=1e-7)
    # gap x: 0.4692787 - 0.6666667 = -0.1973880; y: +0.1973880 (the gaps sum to 0)
    assert got["exposure_gap@3(group=x)"].iloc[0] == pytest.approx(-0.1973880, abs=1e-7)
    assert got["exposure_gap@3(group=y)"].iloc[0] == pytest.approx(0.1973880, abs=1e-7)
    # RBP 0.5, k = 2: attention 1, 0.5: E_x = 2/3 = M_x, ratio 1, gap 0
    rbp = {"browsing": "rbp", "patience": 0.5, "item_groups": GROUPS}
    assert value(
        frame, "exposure_ratio@2(browsing=rbp,group=x,patience=0.5)", **rbp
    ) == pytest.approx(1.0)


def test_awrf_by_hand(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    # default target: relevant items a (x) and c (y), T = (1/2, 1/2). E = (0.4692787,
    # 0.5307213), M = (E + T) / 2 = (0.4846394, 0.5153606).
    # E's term: 0.4692787 log2(0.9683040) + 0.5307213 log2(1.0298062)
    #         = -0.0218058 + 0.0224877 = 0.0006820
    # T's term: 0.5 log2(1.0317065) + 0.5 log2(0.9701964) = 0.0225083 - 0.0218271 = 0.0006811
    # JSD = (0.0006820 + 0.0006811) / 2 = 0.0006816; awrf = 0.9993184
    got = as_float(run(frame, lambda ev: ev.awrf(3, item_groups=GROUPS)))
    assert got == pytest.approx(0.9993184, abs=2e-7)
    # target x alone, T = (1, 0): M = (0.7346394, 0.2653606); E's term 0.4692787
    # log2(0.6387879) + 0.5307213 log2(2) = -0.3034315 + 0.5307213 = 0.2272898; T's term
    # log2(1 / 0.7346394) = 0.4448919; JSD = 0.3360909; awrf = 0.6639091
    got = as_float(run(frame, lambda ev: ev.awrf(3, item_groups=GROUPS, target={"x": 1.0})))
    assert got == pytest.approx(0.6639091, abs=2e-7)
    # a list whose exposure equals the target: awrf 1 (k = 1, T = x alone)
    assert (
        as_float(run(frame, lambda ev: ev.awrf(1, item_groups=GROUPS, target={"x": 1, "y": 0})))
        == 1.0
    )


def test_awrf_trec_fair_convention_by_hand(make_frame: FrameMaker) -> None:
    """The TREC Fair Ranking 2021-22 scripts' AWRF (Task 1), as they define it: attention
    ``1 / log2(max(rank, 2))`` over the whole run (float32 there), each group's attention
    normalised, then ``1 - jensenshannon(E, T) ** 2`` with scipy's default natural log."""
    frame = make_frame(EXAMPLE)
    # attention: ranks 1, 2, 3 -> 1/log2(2) = 1, 1/log2(2) = 1, 1/log2(3) = 0.6309298;
    # total 2.6309298. E = (1, 1.6309298) / 2.6309298 = (0.3800938, 0.6199062).
    # default target T = (1/2, 1/2); M = (E + T) / 2 = (0.4400469, 0.5599531).
    # E's term: 0.3800938 ln(0.8637574) + 0.6199062 ln(1.1070681)
    #         = -0.0556698 + 0.0630539 = 0.0073841
    # T's term: 0.5 ln(1.1362426) + 0.5 ln(0.8929319) = 0.0638634 - 0.0566225 = 0.0072409
    # JSD (nats) = (0.0073841 + 0.0072409) / 2 = 0.0073125; awrf = 0.9926875
    trec = {"item_groups": GROUPS, "convention": "trec_fair"}
    got = as_float(run(frame, lambda ev: ev.awrf(**trec)))
    assert got == pytest.approx(0.9926875, abs=2e-7)
    # the same by scipy (the scripts' own call): jensenshannon is the square root
    e = np.array([1.0, 1.0 + 1 / math.log2(3)]) / (2.0 + 1 / math.log2(3))
    assert got == pytest.approx(1 - jensenshannon(e, [0.5, 0.5]) ** 2, abs=1e-12)
    # a given target T = (1/4, 3/4): M = (0.3150469, 0.6849531)
    # E's term: 0.3800938 ln(1.2064673) + 0.6199062 ln(0.9050345) = 0.0713423 - 0.0618556
    #         = 0.0094867
    # T's term: 0.25 ln(0.7935327) + 0.75 ln(1.0949655) = -0.0578151 + 0.0680421 = 0.0102270
    # JSD = 0.0098568; awrf = 0.9901432
    got = as_float(run(frame, lambda ev: ev.awrf(**trec, target={"x": 0.25, "y": 0.75})))
    assert got == pytest.approx(0.9901432, abs=2e-7)
    # each convention alone: the discount alone (bits) and nats alone differ from both
    bits = as_float(
        run(frame, lambda ev: ev.awrf(item_groups=GROUPS, discount="log2(max(rank,2))"))
    )
    assert bits == pytest.approx(1 - 0.0073125 / math.log(2), abs=2e-7)
    # the label names the preset; an explicit option wins over it
    table = as_pandas(frame.rank_eval.evaluate(["awrf"], **trec, jsd_unit="bits"))
    assert table["awrf(convention=trec_fair,jsd_unit=bits)"].iloc[0] == pytest.approx(bits)


def test_ndkl_by_hand(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    # target: the whole list's shares, T = (1/3, 2/3).
    # top 1 (x): P = (1, 0), KL = ln(1 / (1/3)) = ln 3 = 1.0986123, weight 1
    # top 2 (x, y): P = (1/2, 1/2), KL = 0.5 ln(1.5) + 0.5 ln(0.75) = 0.2027326 - 0.1438410
    #   = 0.0588915, weight 1/log2(3) = 0.6309298 (their product 0.0371564)
    # top 3: P = T, KL = 0, weight 0.5; Z = 2.1309298
    # ndkl@3 = (1.0986123 + 0.0371564) / 2.1309298 = 1.1357687 / 2.1309298 = 0.5329921
    got = as_float(run(frame, lambda ev: ev.ndkl(3, item_groups=GROUPS)))
    assert got == pytest.approx(0.5329921, abs=1e-7)
    # ndkl@2 keeps the whole list's target: (1.0986123 + 0.0371564) / 1.6309298 = 0.6963934
    got = as_float(run(frame, lambda ev: ev.ndkl(2, item_groups=GROUPS)))
    assert got == pytest.approx(0.6963934, abs=1e-7)
    # a target of (1/2, 1/2): top 1 KL = ln 2 = 0.6931472, top 2 0, top 3 P = (1/3, 2/3):
    # (1/3) ln(2/3) + (2/3) ln(4/3) = -0.1351550 + 0.1917880 = 0.0566330, weight 0.5;
    # (0.6931472 + 0.0283165) / 2.1309298 = 0.3385676
    got = as_float(
        run(frame, lambda ev: ev.ndkl(3, item_groups=GROUPS, target={"x": 0.5, "y": 0.5}))
    )
    assert got == pytest.approx(0.3385676, abs=1e-7)


def test_cascade_with_a_last_query_that_retrieves_nothing(make_frame: FrameMaker) -> None:
    # q1 ranks x (relevant, group g), y (h); q2 retrieves nothing (z is judged, no score).
    # cascade, stop 0.5: x 1, y (1 - 0.5)^1 = 0.5 (one relevant item above); q1: E_g =
    # 1 / 1.5 = 2/3, E_h = 1/3; q2: an empty list, 0 for every group
    frame = make_frame(
        {
            "query": ["q1", "q1", "q2"],
            "item": ["x", "y", "z"],
            "score": [2.0, 1.0, None],
            "relevant": [1, 0, 1],
        }
    )
    got = as_pandas(
        frame.rank_eval.per_query(
            ["exposure@2"], item_groups={"x": "g", "y": "h", "z": "g"}, browsing="cascade", stop=0.5
        )
    )
    suffix = "(browsing=cascade,group={})"  # stop=0.5: the default, not in the label
    assert got["query"].tolist() == ["q1", "q2"]
    assert got[f"exposure@2{suffix.format('g')}"].tolist() == pytest.approx([2 / 3, 0.0])
    assert got[f"exposure@2{suffix.format('h')}"].tolist() == pytest.approx([1 / 3, 0.0])


def test_cascade_reads_grades_at_or_below_zero(make_frame: FrameMaker) -> None:
    # a (grade -1, group x), b (0, y), c (2, x), ranked a, b, c; cascade, stop 0.5.
    # min_relevance=0: b and c are relevant, a is not: attention a 1, b 1 (nothing relevant
    # above), c 0.5 (b above); total 2.5, x (a, c) 1.5 / 2.5 = 0.6.
    # The default (grade > 0): only c is relevant: 1, 1, 1; x 2/3.
    frame = make_frame(
        {
            "query": ["q", "q", "q"],
            "item": ["a", "b", "c"],
            "score": [3.0, 2.0, 1.0],
            "relevant": [-1, 0, 2],
        }
    )
    groups = {"a": "x", "b": "y", "c": "x"}
    at_zero = as_float(
        run(
            frame,
            lambda ev: ev.exposure(
                3, item_groups=groups, group="x", browsing="cascade", min_relevance=0
            ),
        )
    )
    assert at_zero == pytest.approx(0.6)
    default = as_float(
        run(frame, lambda ev: ev.exposure(3, item_groups=groups, group="x", browsing="cascade"))
    )
    assert default == pytest.approx(2 / 3)


def test_ndkl_reads_only_the_retrieved_rows_for_its_target(make_frame: FrameMaker) -> None:
    # EXAMPLE with a row z that is judged but not retrieved (null score): not in the whole
    # list, so it needs no group and leaves the target (1/3, 2/3): ndkl@2 = 0.6963934 as in
    # test_ndkl_by_hand
    frame = make_frame(
        {
            "query": ["q"] * 4,
            "item": ["a", "b", "c", "z"],
            "score": [3.0, 2.0, 1.0, None],
            "relevant": [2, 0, 1, 0],
        }
    )
    got = as_float(run(frame, lambda ev: ev.ndkl(2, item_groups=GROUPS)))
    assert got == pytest.approx(0.6963934, abs=1e-7)


def test_ndkl_of_number_ids_names_an_item_without_a_group(make_frame: FrameMaker) -> None:
    # items 1, 2, 3 ranked in that order, as EXAMPLE: the same ndkl@2 (0.6963934); item 3,
    # ranked below k = 1 and without a group, is named
    frame = make_frame({**EXAMPLE, "item": [1, 2, 3]})
    got = as_float(run(frame, lambda ev: ev.ndkl(2, item_groups={1: "x", 2: "y", 3: "y"})))
    assert got == pytest.approx(0.6963934, abs=1e-7)
    with pytest.raises(
        InvalidOptionError,
        match=r"1 item\(s\) of the top-k lists or of the "
        r"relevant rows have no group in "
        r"item_groups: 3\.",
    ):
        run(frame, lambda ev: ev.ndkl(1, item_groups={1: "x", 2: "y"}))


# -- a brute force over many queries -----------------------------------------------------------

ITEMS = [f"i{n}" for n in range(10)]
ITEM_GROUPS = {item: ("small", "large", "mid")[n % 3] for n, item in enumerate(ITEMS)}
NAMES = ["large", "mid", "small"]


def random_frame(seed: int, n_queries: int = 12) -> pd.DataFrame:
    """Queries of 1-7 items, graded 0-2, some null scores, two systems, a segment."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        n = int(rng.integers(1, 8))
        for item in rng.choice(ITEMS, size=n, replace=False):
            rows.append(
                {
                    "query": f"q{q:02d}",
                    "item": str(item),
                    "score": None if rng.random() < 0.15 else float(rng.random()),
                    "other": float(rng.random()),
                    "relevant": int(rng.choice([0, 0, 1, 2])),
                    "segment": q % 2,
                }
            )
    frame = pd.DataFrame(rows)
    frame["score"] = frame["score"].astype(float)
    return frame


def brute(
    rows: pd.DataFrame, score: str, k: int, browsing: str, target: dict[str, float] | None = None
) -> dict[str, float]:
    """One query's values, from the formulas, with Python loops."""
    ranked = sorted(
        (
            (s, i, r)
            for s, i, r in zip(rows[score], rows["item"], rows["relevant"], strict=True)
            if not pd.isna(s)
        ),
        key=lambda t: (-t[0], t[1]),
    )[:k]
    weights, above = [], 0
    for rank, (_, _, grade) in enumerate(ranked, start=1):
        if browsing == "log":
            weights.append(1 / math.log2(1 + rank))
        elif browsing == "rbp":
            weights.append(0.7 ** (rank - 1))
        else:
            weights.append(0.4**above)  # stop = 0.6
            above += grade > 0
    total = sum(weights)
    exposure = {
        g: sum(w for w, (_, i, _) in zip(weights, ranked, strict=True) if ITEM_GROUPS[i] == g)
        / total
        if total
        else 0.0
        for g in NAMES
    }
    relevant = [(i, r) for i, r in zip(rows["item"], rows["relevant"], strict=True) if r > 0]
    grades = sum(r for _, r in relevant)
    merit = {
        g: sum(r for i, r in relevant if ITEM_GROUPS[i] == g) / grades if grades else 0
        for g in NAMES
    }
    out = {}
    for g in NAMES:
        out[f"exposure@{k}(group={g})"] = exposure[g]
        out[f"exposure_gap@{k}(group={g})"] = exposure[g] - merit[g] if grades else 0.0
        ratio = exposure[g] / merit[g] if merit[g] else math.nan
        out[f"exposure_ratio@{k}(group={g})"] = ratio if grades else 0.0
    shares = target or {
        g: sum(ITEM_GROUPS[i] == g for i, _ in relevant) / len(relevant) if relevant else 0.0
        for g in NAMES
    }
    jsd = 0.0
    for g in NAMES:
        p, q = exposure[g], shares.get(g, 0.0)
        m = (p + q) / 2
        jsd += (p * math.log2(p / m) if p else 0.0) / 2 + (q * math.log2(q / m) if q else 0.0) / 2
    out[f"awrf@{k}"] = 1 - jsd if total and sum(shares.values()) else 0.0
    return out


def brute_ndkl(
    rows: pd.DataFrame, score: str, k: int, groups: dict[str, str] = ITEM_GROUPS
) -> float:
    """One query's ndkl@k from its formula: T the groups' shares of the whole ranked list
    (every retrieved item, beyond k too), KL(P_i || T) in nats over i <= k, DCG weights."""
    ranked = [
        i
        for _, i in sorted(
            ((s, i) for s, i in zip(rows[score], rows["item"], strict=True) if not pd.isna(s)),
            key=lambda t: (-t[0], t[1]),
        )
    ]
    if not ranked:
        return 0.0
    names = sorted(set(groups.values()))
    target = {g: sum(groups[i] == g for i in ranked) / len(ranked) for g in names}
    total = z = 0.0
    for depth in range(1, min(k, len(ranked)) + 1):
        top = ranked[:depth]
        shares = {g: sum(groups[i] == g for i in top) / depth for g in names}
        kl = sum(p * math.log(p / target[g]) for g, p in shares.items() if p)
        total += kl / math.log2(1 + depth)
        z += 1 / math.log2(1 + depth)
    return total / z


BROWSING_OPTIONS = {
    "log": {},
    "rbp": {"browsing": "rbp", "patience": "0.7"},
    "cascade": {"browsing": "cascade", "stop": "0.6"},
}


def label(name: str, browsing: str) -> str:
    """The column of ``name`` (``exposure@3(group=x)``, ``awrf@3``) under ``browsing``: the
    options that moved from their defaults, sorted by name."""
    metric, _, rest = name.partition("(")
    options = dict(BROWSING_OPTIONS[browsing])
    if rest:
        options["group"] = rest[:-1].split("=")[1]
    text = ",".join(f"{n}={v}" for n, v in sorted(options.items()))
    return f"{metric}({text})" if text else metric


@pytest.mark.parametrize(("browsing", "k"), [("log", 3), ("rbp", 5), ("cascade", 4)])
def test_per_query_against_the_formulas(make_frame: FrameMaker, browsing: str, k: int) -> None:
    data = random_frame(k)
    options = {
        "item_groups": ITEM_GROUPS,
        **{n: v if n == "browsing" else float(v) for n, v in BROWSING_OPTIONS[browsing].items()},
    }
    table = as_pandas(
        make_frame(data)
        .rank_eval(score=["score", "other"])
        .per_query(
            [f"exposure@{k}", f"exposure_ratio@{k}", f"exposure_gap@{k}", f"awrf@{k}"], **options
        )
    )
    assert len(table) == 2 * data["query"].nunique()
    for row in table.to_dict("records"):
        rows = data[data["query"] == row["query"]]
        for name, expected in brute(rows, row["system"], k, browsing).items():
            got = row[label(name, browsing)]
            if math.isnan(expected):
                assert math.isnan(got), (row["query"], name)
            else:
                assert got == pytest.approx(expected, abs=1e-12), (row["query"], name)
    # ndkl@k: its target reads the whole list of each system (null scores left out), the
    # items below k too
    ndkl = as_pandas(
        make_frame(data)
        .rank_eval(score=["score", "other"])
        .per_query([f"ndkl@{k}"], item_groups=ITEM_GROUPS)
    )
    for row in ndkl.to_dict("records"):
        rows = data[data["query"] == row["query"]]
        expected = brute_ndkl(rows, row["system"], k)
        assert row[f"ndkl@{k}"] == pytest.approx(expected, abs=1e-12), row["query"]


@pytest.mark.parametrize("prefix", ["", "a-longer-item-id-"])
def test_groups_of_short_and_long_ids(make_frame: FrameMaker, prefix: str) -> None:
    # ids of up to 7 bytes are looked up in item_groups by their 64-bit keys, longer ones by
    # a hash table: the same groups either way (the prefix keeps the ids' order)
    data = random_frame(11)
    renamed = data.assign(item=prefix + data["item"])
    groups = {prefix + item: group for item, group in ITEM_GROUPS.items()}
    table = as_pandas(make_frame(renamed).rank_eval.per_query(["exposure@3"], item_groups=groups))
    for row in table.to_dict("records"):
        expected = brute(data[data["query"] == row["query"]], "score", 3, "log")
        for g in NAMES:
            name = f"exposure@3(group={g})"
            assert row[name] == pytest.approx(expected[name], abs=1e-12), row["query"]


def test_ndkl_of_full_lists_against_the_formula(make_frame: FrameMaker) -> None:
    # every query retrieves 6 items, so every top-4 list is full (each list of the same
    # length: the running counts of each group by the (list x place) table), two systems
    rng = np.random.default_rng(4)
    rows = [
        {
            "query": f"q{q:02d}",
            "item": str(item),
            "score": float(rng.random()),
            "other": float(rng.random()),
            "relevant": int(rng.integers(0, 3)),
        }
        for q in range(10)
        for item in rng.choice(ITEMS, size=6, replace=False)
    ]
    data = pd.DataFrame(rows)
    table = as_pandas(
        make_frame(data)
        .rank_eval(score=["score", "other"])
        .per_query(["ndkl@4"], item_groups=ITEM_GROUPS)
    )
    assert len(table) == 20
    for row in table.to_dict("records"):
        expected = brute_ndkl(data[data["query"] == row["query"]], row["system"], 4)
        assert row["ndkl@4"] == pytest.approx(expected, abs=1e-12), row["query"]


@pytest.mark.parametrize(
    ("n_groups", "longest", "k"),
    [
        (3, 7, 5),  # lists of every length below k, the first one empty: one running count
        (10, 7, 5),  # more groups than the bytes of a 64-bit word: a sort by (list, group)
        (2, 255, 255),  # a group counted to 255 in its byte, the most it holds
        (2, 256, 256),  # a list too long for a byte's count: the sort
    ],
)
def test_ndkl_of_ragged_lists_and_many_groups(
    make_frame: FrameMaker, n_groups: int, longest: int, k: int
) -> None:
    rng = np.random.default_rng(n_groups + longest)
    # `longest` items of g0, then one item of each other group
    items = [f"i{n:03d}" for n in range(longest + n_groups - 1)]
    groups = {item: f"g{max(n - longest + 1, 0)}" for n, item in enumerate(items)}
    rows = [{"query": "q00", "item": "i000", "score": None, "relevant": 1}]  # retrieves none
    for q in range(1, 9):  # q01 ranks every item of g0: its count reaches `longest`
        size = longest if q < 3 else int(rng.integers(1, longest + 1))
        chosen = items[:longest] if q == 1 else rng.choice(items, size=size, replace=False)
        rows += [
            {
                "query": f"q{q:02d}",
                "item": str(item),
                "score": None if q > 1 and rng.random() < 0.1 else float(rng.random()),
                "relevant": int(rng.integers(0, 3)),
            }
            for item in chosen
        ]
    data = pd.DataFrame(rows).astype({"score": float})
    table = as_pandas(make_frame(data).rank_eval.per_query([f"ndkl@{k}"], item_groups=groups))
    assert len(table) == 9
    for row in table.to_dict("records"):
        expected = brute_ndkl(data[data["query"] == row["query"]], "score", k, groups)
        assert row[f"ndkl@{k}"] == pytest.approx(expected, abs=1e-12), row["query"]


def test_segments_are_means_of_the_queries(make_frame: FrameMaker) -> None:
    data = random_frame(7, n_queries=16)
    got = as_pandas(
        make_frame(data).rank_eval.evaluate(
            ["exposure_ratio@3", "awrf@3"],
            by="segment",
            item_groups=ITEM_GROUPS,
            target={"small": 0.5, "mid": 0.25, "large": 0.25},
        )
    )
    target = {"small": 0.5, "mid": 0.25, "large": 0.25}
    for segment, rows in data.groupby("segment"):
        per_query = [brute(q, "score", 3, "log", target) for _, q in rows.groupby("query")]
        row = got[got["segment"] == segment].iloc[0]
        assert row["awrf@3"] == pytest.approx(np.mean([v["awrf@3"] for v in per_query]), abs=1e-12)
        for g in NAMES:  # a NaN ratio (the group has no merit) is left out of the mean
            name = f"exposure_ratio@3(group={g})"
            assert row[name] == pytest.approx(np.nanmean([v[name] for v in per_query]), abs=1e-12)


# -- FairRankTune ------------------------------------------------------------------------------


def shares_of(per_item: dict[Any, float], counts: dict[Any, int]) -> dict[Any, float]:
    """FairRankTune's per-group means times the groups' item counts, as shares."""
    totals = {g: per_item[g] * counts[g] for g in per_item}
    return {g: t / sum(totals.values()) for g, t in totals.items()}


@pytest.mark.parametrize("seed", [0, 1])
def test_fairranktune(make_frame: FrameMaker, seed: int) -> None:
    # FairRankTune sums the attention of each group over a ranking and divides by the
    # group's number of items: times that number, the shares are exposure@k's.
    data = random_frame(seed, n_queries=6).dropna(subset=["score"])
    k = 4
    counts = {g: sum(v == g for v in ITEM_GROUPS.values()) for g in NAMES}
    p = 0.4  # FairRankTune's AWRF: attention 100 (1 - p)^(i - 1) p, RBP with patience 0.6
    frame = make_frame(data)
    log = as_pandas(frame.rank_eval.per_query([f"exposure@{k}"], item_groups=ITEM_GROUPS))
    rbp = as_pandas(
        frame.rank_eval.per_query(
            [f"exposure@{k}"], item_groups=ITEM_GROUPS, browsing="rbp", patience=1 - p
        )
    )
    for query, rows in data.groupby("query"):
        ranked = rows.sort_values(["score", "item"], ascending=[False, False])["item"][:k]
        ranking = pd.DataFrame({0: list(ranked)})
        _, per_item = EXP(ranking, ITEM_GROUPS, "MinMaxRatio")
        want = shares_of(per_item, counts)
        _, attention = AWRF(ranking, ITEM_GROUPS, p, "MinMaxRatio")
        want_rbp = shares_of(attention, counts)
        for g in NAMES:
            column = f"exposure@{k}(group={g})"
            assert log.loc[log["query"] == query, column].iloc[0] == pytest.approx(
                want[g], abs=1e-12
            )
            rbp_column = f"exposure@{k}(browsing=rbp,group={g},patience={1 - p!r})"
            assert rbp.loc[rbp["query"] == query, rbp_column].iloc[0] == pytest.approx(
                want_rbp[g], abs=1e-12
            )


@pytest.mark.parametrize("seed", [2, 3])
def test_ndkl_is_fairranktunes(make_frame: FrameMaker, seed: int) -> None:
    # FairRankTune's NDKL reads the whole ranking, against the whole ranking's shares (its
    # default target is ours), with natural logs; it adds 1e-7 to every share, hence the
    # tolerance
    data = random_frame(seed, n_queries=8)
    table = as_pandas(make_frame(data).rank_eval.per_query(["ndkl"], item_groups=ITEM_GROUPS))
    for query, rows in data.dropna(subset=["score"]).groupby("query"):
        ranked = rows.sort_values(["score", "item"], ascending=[False, False])["item"]
        want = NDKL(pd.DataFrame({0: list(ranked)}), ITEM_GROUPS)
        assert table.loc[table["query"] == query, "ndkl"].iloc[0] == pytest.approx(want, abs=1e-5)


# -- intervals, compare, the item groups' forms ------------------------------------------------


def test_intervals_and_compare(make_frame: FrameMaker) -> None:
    data = random_frame(3, n_queries=30)
    frame = make_frame(data).rank_eval(score=["score", "other"])
    table = as_pandas(
        frame.evaluate(
            ["exposure@3", "awrf@3"],
            item_groups=ITEM_GROUPS,
            confidence_level=0.9,
            n_resamples=50,
            seed=1,
        )
    )
    for column in ["exposure@3(group=small)", "awrf@3"]:
        assert (table[f"{column}_ci_low"] <= table[column]).all()
        assert (table[column] <= table[f"{column}_ci_high"]).all()
    compared = as_pandas(frame.compare(["exposure@3", "awrf@3"], item_groups=ITEM_GROUPS))
    assert set(compared["metric"]) == {
        "exposure(group=large)",
        "exposure(group=mid)",
        "exposure(group=small)",
        "awrf",
    }
    # the paired delta is the difference of the means of the two systems
    means = table.set_index("system")
    row = compared[(compared["metric"] == "awrf") & (compared["system"] == "other")].iloc[0]
    assert row["delta"] == pytest.approx(
        means.loc["other", "awrf@3"] - means.loc["score", "awrf@3"], abs=1e-12
    )
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]


def test_every_form_of_item_groups(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    forms = [
        GROUPS,
        pd.Series(GROUPS),
        pd.DataFrame({"group": pd.Series(GROUPS)}),
        pd.DataFrame({"item": list(GROUPS), "group": list(GROUPS.values())}),
        pl.DataFrame({"item": list(GROUPS), "group": list(GROUPS.values())}),
    ]
    for form in forms:
        got = as_float(run(frame, lambda ev, f=form: ev.exposure(3, item_groups=f, group="x")))
        assert got == pytest.approx(E_X)


def test_unknown_group_is_a_bucket(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    # c has no group: in "other", with attention 0.5 of 2.130930 = 0.234639
    got = as_pandas(
        frame.rank_eval.evaluate(
            ["exposure@3"], item_groups={"a": "x", "b": "y"}, unknown_group="other"
        )
    )
    assert got["exposure@3(group=other)"].iloc[0] == pytest.approx(0.5 / sum(LOG))
    assert got["exposure@3(group=y)"].iloc[0] == pytest.approx(LOG[1] / sum(LOG))


# -- bad input ---------------------------------------------------------------------------------


def test_bad_input(make_frame: FrameMaker) -> None:
    frame = make_frame(EXAMPLE)
    with pytest.raises(
        InvalidOptionError,
        match=r"1 item\(s\) of the top-k lists or of the "
        r"relevant rows have no group in "
        r"item_groups: 'c'.*unknown_group=",
    ):
        run(frame, lambda ev: ev.evaluate(["exposure@3"], item_groups={"a": "x", "b": "y"}))
    # ndkl@1 reads the whole list for its target: c, ranked 3rd, needs a group too
    with pytest.raises(
        InvalidOptionError,
        match=r"1 item\(s\) of the top-k lists or of the "
        r"relevant rows have no group in "
        r"item_groups: 'c'",
    ):
        run(frame, lambda ev: ev.ndkl(1, item_groups={"a": "x", "b": "y"}))
    with pytest.raises(InvalidOptionError, match=r"exposure@3 needs the 'item_groups' option"):
        run(frame, lambda ev: ev.evaluate(["exposure@3"]))
    with pytest.raises(InvalidOptionError, match=r"shares sum to 0.9, not 1"):
        run(frame, lambda ev: ev.awrf(3, item_groups=GROUPS, target={"x": 0.5, "y": 0.4}))
    with pytest.raises(
        InvalidOptionError,
        match=r"names the group 'z', which has no item in "
        r"item_groups \(an empty group",
    ):
        run(frame, lambda ev: ev.awrf(3, item_groups=GROUPS, target={"x": 0.5, "z": 0.5}))
    with pytest.raises(InvalidOptionError, match=r"gives item 'b' a null group"):
        run(frame, lambda ev: ev.awrf(3, item_groups={**GROUPS, "b": None}))
    with pytest.raises(InvalidOptionError, match=r"group='z' is not a group of item_groups"):
        run(frame, lambda ev: ev.exposure(3, item_groups=GROUPS, group="z"))
    with pytest.raises(
        InvalidOptionError,
        match=r"exposure has a value per group "
        r"\('exposure@3\(group=x\)'",
    ):
        run(frame, lambda ev: ev.exposure(3, item_groups=GROUPS))
    with pytest.raises(
        InvalidOptionError,
        match=r"'patience' option must be a number with "
        r"0 < value < 1",
    ):
        run(frame, lambda ev: ev.exposure(3, item_groups=GROUPS, group="x", patience=1.0))
    with pytest.raises(InvalidOptionError, match=r"'browsing' option must be one of"):
        run(frame, lambda ev: ev.exposure(3, item_groups=GROUPS, group="x", browsing="dcg"))


def test_long_tables_have_a_group_column(make_frame: FrameMaker) -> None:
    frame = make_frame({**EXAMPLE, "other": [1.0, 3.0, 2.0]})  # ranks b, c, a
    tidy = as_pandas(frame.rank_eval.evaluate(["exposure@3", "mrr"], item_groups=GROUPS, tidy=True))
    assert list(tidy.columns) == ["system", "metric", "k", "group", "value", "n_queries"]
    rows = {
        (r["metric"], r["group"] if isinstance(r["group"], str) else None): r["value"]
        for r in tidy.to_dict("records")
    }
    assert rows == {
        ("exposure(group=x)", "x"): pytest.approx(E_X),
        ("exposure(group=y)", "y"): pytest.approx(E_Y),
        ("mrr", None): 1.0,
    }
    # "other" puts a (x) at rank 3: 0.5 / 2.1309298 = 0.2346394, a delta of -0.2346394
    compared = as_pandas(
        frame.rank_eval(score=["score", "other"]).compare(["exposure@3"], item_groups=GROUPS)
    )
    assert list(compared.columns[:5]) == ["system", "metric", "k", "group", "mean"]
    row = compared[(compared["system"] == "other") & (compared["group"] == "x")].iloc[0]
    assert row["delta"] == pytest.approx(0.5 / sum(LOG) - E_X)


@pytest.mark.parametrize(
    ("option", "metric", "value"),
    [("popularity", "arp@2", "its count"), ("item_groups", "exposure@2", "its group")],
)
def test_a_polars_mapping_of_three_columns_is_named(
    make_frame: FrameMaker, option: str, metric: str, value: str
) -> None:
    frame = make_frame(
        {"query": [1, 1], "item": ["a", "b"], "score": [0.9, 0.1], "relevant": [1, 0]}
    )
    mapping = pl.DataFrame({"item": ["a", "b"], "v": [1, 2], "w": [1, 2]})
    with pytest.raises(
        InvalidOptionError,
        match=f"'{option}' option, as a polars DataFrame, must have two "
        f"columns: the item, then {value}. Got 3 columns",
    ):
        collect(frame.rank_eval.evaluate([metric], **{option: mapping}))


# -- expected exposure (Diaz et al. 2020) -------------------------------------------------------


def test_expected_exposure_by_hand(make_frame: FrameMaker) -> None:
    """EE-L, EE-D and EE-R of one ranking per query, from their definitions (Diaz et al.
    2020; the components as TREC Fair Ranking 2021's script computes them)."""
    # q1 ranks a (grade 2), b (0), c (1); q2 ranks d (1), e (1), f (0), and g (grade 2) is
    # relevant but not retrieved.
    frame = make_frame(
        {
            "query": ["q1"] * 3 + ["q2"] * 4,
            "item": ["a", "b", "c", "d", "e", "f", "g"],
            "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, None],
            "relevant": [2, 0, 1, 1, 1, 0, 2],
        }
    )
    rbp = {"browsing": "rbp", "patience": 0.5}
    got = as_pandas(
        frame.rank_eval.per_query(["expected_exposure", "ee_disparity", "ee_relevance"], **rbp)
    )
    suffix = "(browsing=rbp,patience=0.5)"
    loss, disparity, relevance = (
        got[f"{m}{suffix}"].tolist() for m in ("expected_exposure", "ee_disparity", "ee_relevance")
    )
    # RBP, patience 1/2: ε = 1, 1/2, 1/4 down each ranking.
    # q1: target a (grade 2, b = 0, m = 1): A(1) - A(0) = 1; c (grade 1, b = 1, m = 1):
    #   A(2) - A(1) = 1/2; b: 0.
    #   EE-D = 1 + 1/4 + 1/16 = 1.3125; EE-R = 1 * 1 + 1/4 * 1/2 = 1.125
    #   EE-L = (1 - 1)^2 + (1/2 - 0)^2 + (1/4 - 1/2)^2 = 0.3125
    # q2: target g (grade 2): 1; d, e (grade 1, b = 1, m = 2): (A(3) - A(1)) / 2 =
    #   (1/2 + 1/4) / 2 = 0.375 each; f: 0.
    #   EE-D = 1.3125; EE-R = 1 * 0.375 + 1/2 * 0.375 = 0.5625
    #   EE-L = (1 - 0.375)^2 + (1/2 - 0.375)^2 + (1/4)^2 + (0 - 1)^2
    #        = 0.390625 + 0.015625 + 0.0625 + 1 = 1.46875
    assert disparity == pytest.approx([1.3125, 1.3125], abs=1e-12)
    assert relevance == pytest.approx([1.125, 0.5625], abs=1e-12)
    assert loss == pytest.approx([0.3125, 1.46875], abs=1e-12)
    # the log model cut at k = 2: ε = 1, 1/log2(3) = 0.6309298, 0; A(1) = 1,
    # A(2) = A(3) = 1.6309298.
    # q1: targets a 1, c 0.6309298. EE-D = 1 + 0.3980724 = 1.3980724; EE-R = 1;
    #   EE-L = 0 + 0.3980724 + 0.3980724 = 0.7961447
    # q2: targets g 1, d and e (1.6309298 - 1) / 2 = 0.3154649. EE-D = 1.3980724;
    #   EE-R = 0.3154649 + 0.6309298 * 0.3154649 = 0.3154649 + 0.1990362
    #   = 0.5145011;
    #   EE-L = (1 - 0.3154649)^2 (d) + (0.6309298 - 0.3154649)^2 (e) + 0 (f) + (0 - 1)^2 (g)
    #        = 0.4685883 + 0.0995181 + 1 = 1.5681064
    got = as_pandas(
        frame.rank_eval.per_query(["expected_exposure@2", "ee_disparity@2", "ee_relevance@2"])
    )
    assert got["ee_disparity@2"].tolist() == pytest.approx([1.3980724] * 2, abs=1e-7)
    assert got["ee_relevance@2"].tolist() == pytest.approx([1.0, 0.5145011], abs=1e-7)
    assert got["expected_exposure@2"].tolist() == pytest.approx([0.7961447, 1.5681064], abs=1e-7)


def test_expected_exposure_under_min_relevance(make_frame: FrameMaker) -> None:
    """The frame of test_expected_exposure_by_hand with min_relevance=2: only grade 2 is
    relevant, so only a (q1) and g (q2) have a target exposure."""
    frame = make_frame(
        {
            "query": ["q1"] * 3 + ["q2"] * 4,
            "item": ["a", "b", "c", "d", "e", "f", "g"],
            "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, None],
            "relevant": [2, 0, 1, 1, 1, 0, 2],
        }
    )
    options = {"browsing": "rbp", "patience": 0.5, "min_relevance": 2}
    got = as_pandas(
        frame.rank_eval.per_query(["expected_exposure", "ee_disparity", "ee_relevance"], **options)
    )
    suffix = "(browsing=rbp,min_relevance=2,patience=0.5)"
    # ε = 1, 1/2, 1/4 down each ranking; targets: a 1 (q1), g 1 (q2), the others 0.
    # q1: EE-D = 1.3125, EE-R = 1 * 1 = 1, EE-L = 0 + 1/4 + 1/16 = 0.3125
    # q2: EE-D = 1.3125, EE-R = 0, EE-L = 1 + 1/4 + 1/16 + (0 - 1)^2 = 2.3125
    assert got[f"ee_disparity{suffix}"].tolist() == pytest.approx([1.3125] * 2, abs=1e-12)
    assert got[f"ee_relevance{suffix}"].tolist() == pytest.approx([1.0, 0.0], abs=1e-12)
    assert got[f"expected_exposure{suffix}"].tolist() == pytest.approx([0.3125, 2.3125], abs=1e-12)


def test_expected_exposure_under_min_relevance_every_row_ranked(make_frame: FrameMaker) -> None:
    """As above, with g ranked too (last in q2): every row is retrieved, so the relevant
    rows come from the ranking's positively graded rows, filtered by min_relevance."""
    frame = make_frame(
        {
            "query": ["q1"] * 3 + ["q2"] * 4,
            "item": ["a", "b", "c", "d", "e", "f", "g"],
            "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 0.5],
            "relevant": [2, 0, 1, 1, 1, 0, 2],
        }
    )
    options = {"browsing": "rbp", "patience": 0.5, "min_relevance": 2}
    got = as_pandas(
        frame.rank_eval.per_query(["expected_exposure", "ee_disparity", "ee_relevance"], **options)
    )
    suffix = "(browsing=rbp,min_relevance=2,patience=0.5)"
    # q1 as above; q2 ranks d, e, f, g: ε = 1, 1/2, 1/4, 1/8, only g has a target (1):
    # EE-D = 1 + 1/4 + 1/16 + 1/64 = 1.328125, EE-R = 1/8,
    # EE-L = 1 + 1/4 + 1/16 + (1/8 - 1)^2 = 1.3125 + 0.765625 = 2.078125
    assert got[f"ee_disparity{suffix}"].tolist() == pytest.approx([1.3125, 1.328125], abs=1e-12)
    assert got[f"ee_relevance{suffix}"].tolist() == pytest.approx([1.0, 0.125], abs=1e-12)
    assert got[f"expected_exposure{suffix}"].tolist() == pytest.approx(
        [0.3125, 2.078125], abs=1e-12
    )


def test_a_large_frame_by_hand(make_frame: FrameMaker) -> None:
    """From 200,000 entries the finish step counts ndkl's whole lists and computes
    expected exposure in threads beside the other metrics: the hand-computed values of two
    queries, repeated 40,000 times (280,000 rows)."""
    copies = 40_000
    # q1 ranks a (grade 2, group x), b (0, y), c (1, y); q2 ranks d (1, x), e (1, y),
    # f (0, y), and g (2, x) is judged, not retrieved: both lists are x, y, y
    one = {
        "query": ["q1"] * 3 + ["q2"] * 4,
        "item": list("abcdefg"),
        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, None],
        "relevant": [2, 0, 1, 1, 1, 0, 2],
    }
    frame = make_frame(
        pd.DataFrame(
            {
                "query": [f"{q}-{c}" for c in range(copies) for q in one["query"]],
                "item": one["item"] * copies,
                "score": one["score"] * copies,
                "relevant": one["relevant"] * copies,
            }
        )
    )
    groups = {"a": "x", "b": "y", "c": "y", "d": "x", "e": "y", "f": "y", "g": "x"}
    got = as_pandas(
        frame.rank_eval.evaluate(
            ["exposure@3", "ndkl@3", "expected_exposure@3"],
            item_groups=groups,
            browsing="rbp",
            patience=0.5,
        )
    ).iloc[0]
    # exposure, rbp 1/2: attention 1, 1/2, 1/4, x holds rank 1: 1 / 1.75 (each query)
    assert got["exposure@3(browsing=rbp,group=x,patience=0.5)"] == pytest.approx(1 / 1.75)
    # ndkl: as test_ndkl_by_hand (the target reads the retrieved rows: x, y, y)
    assert got["ndkl@3"] == pytest.approx(0.5329921, abs=1e-7)
    # EE-L: q1 0.3125, q2 1.46875 (test_expected_exposure_by_hand, all within k = 3)
    assert got["expected_exposure@3(browsing=rbp,patience=0.5)"] == pytest.approx(
        (0.3125 + 1.46875) / 2, abs=1e-12
    )
    assert got["n_queries"] == 2 * copies


def test_expected_exposure_without_relevant_items(make_frame: FrameMaker) -> None:
    # q ranks a, b, neither relevant: every target is 0, EE-R = 0 and EE-L = EE-D =
    # 1 + (1/2)^2 = 1.25 under RBP with patience 1/2, kept under empty="zero" (EE-L's 0
    # would read as perfect); EE-R follows empty= ("skip": no query left, an error)
    frame = make_frame(
        {"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0], "relevant": [0, 0]}
    )
    rbp = {"browsing": "rbp", "patience": 0.5}
    assert as_float(run(frame, lambda ev: ev.expected_exposure(**rbp))) == 1.25
    assert as_float(run(frame, lambda ev: ev.ee_disparity(**rbp))) == 1.25
    assert as_float(run(frame, lambda ev: ev.ee_relevance(**rbp))) == 0.0
    with pytest.raises(InvalidDataError, match="No query is left to evaluate"):
        run(frame, lambda ev: ev.ee_relevance(**rbp, empty="skip"))
    assert as_float(run(frame, lambda ev: ev.expected_exposure(**rbp, empty="skip"))) == 1.25


# Sampled rankings (rank_eval(sample="draw")): q1 has two samples of three items, q2 two
# samples of different lengths; rows in no particular order.
SAMPLED = {
    "query": ["q1", "q2", "q1", "q1", "q2", "q1", "q2", "q1", "q2", "q1", "q2"],
    "draw": [1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1],
    "item": ["a", "d", "b", "a", "e", "c", "f", "b", "e", "c", "d"],
    "score": [2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0],
    "relevant": [2, 1, 0, 2, 0, 1, 0, 0, 0, 1, 1],
}
SAMPLED_D = [1.09375, 1.015625]
SAMPLED_R = [1.0625, 0.625]
SAMPLED_L = [0.21875, 0.765625]


def test_expected_exposure_over_samples_by_hand(make_frame: FrameMaker) -> None:
    """ε_d: the mean over the query's sampled rankings of d's attention in each."""
    frame = make_frame(SAMPLED)
    rbp = {"browsing": "rbp", "patience": 0.5}
    got = as_pandas(
        frame.rank_eval(sample="draw").per_query(
            ["expected_exposure", "ee_disparity", "ee_relevance"], **rbp
        )
    )
    suffix = "(browsing=rbp,patience=0.5)"
    assert got["query"].tolist() == ["q1", "q2"]
    loss, disparity, relevance = (
        got[f"{m}{suffix}"].tolist() for m in ("expected_exposure", "ee_disparity", "ee_relevance")
    )
    # RBP, patience 1/2: attention 1, 1/2, 1/4 down each sampled ranking.
    # q1: draw 0 ranks a, b, c; draw 1 ranks c, a, b.
    #   ε_a = (1 + 1/2) / 2 = 0.75, ε_b = (1/2 + 1/4) / 2 = 0.375, ε_c = (1/4 + 1) / 2 = 0.625
    #   target: a (grade 2) 1, c (grade 1) 1/2, b 0
    #   EE-D = 0.5625 + 0.140625 + 0.390625 = 1.09375
    #   EE-R = 0.75 * 1 + 0.625 * 0.5 = 1.0625
    #   EE-L = (0.75 - 1)^2 + 0.375^2 + (0.625 - 0.5)^2 = 0.0625 + 0.140625 + 0.015625
    #        = 0.21875
    # q2: draw 0 ranks d, e (two items); draw 1 ranks e, f, d (three).
    #   ε_d = (1 + 1/4) / 2 = 0.625, ε_e = (1/2 + 1) / 2 = 0.75, ε_f = (0 + 1/2) / 2 = 0.25
    #   target: d (grade 1) 1, e and f 0
    #   EE-D = 0.390625 + 0.5625 + 0.0625 = 1.015625; EE-R = 0.625
    #   EE-L = (0.625 - 1)^2 + 0.75^2 + 0.25^2 = 0.140625 + 0.5625 + 0.0625 = 0.765625
    assert disparity == pytest.approx(SAMPLED_D, abs=1e-12)
    assert relevance == pytest.approx(SAMPLED_R, abs=1e-12)
    assert loss == pytest.approx(SAMPLED_L, abs=1e-12)
    means = as_pandas(frame.rank_eval(sample="draw").evaluate(["expected_exposure"], **rbp))
    assert means[f"expected_exposure{suffix}"].iloc[0] == pytest.approx(0.4921875, abs=1e-12)
    assert means["n_queries"].iloc[0] == 2
    # cut at k = 1: only each sample's first item is seen. q1: ε_a = 1/2 (draw 0),
    # ε_c = 1/2 (draw 1); targets under k = 1: a 1 (A(1) - A(0)), c 0 (A(2) - A(1) = 0).
    # EE-D = 0.5; EE-R = 0.5; EE-L = 0.25 + 0.25 = 0.5
    one = as_pandas(frame.rank_eval(sample="draw").per_query(["ee_r@1", "ee_d@1"], **rbp))
    assert one[f"ee_relevance@1{suffix}"].iloc[0] == pytest.approx(0.5, abs=1e-12)
    assert one[f"ee_disparity@1{suffix}"].iloc[0] == pytest.approx(0.5, abs=1e-12)


def test_sampled_rankings_by_segment_and_compared(make_frame: FrameMaker) -> None:
    # "other" reverses every sampled ranking (score negated), under RBP with patience 1/2:
    # q1: draw 0 ranks c, b, a; draw 1 b, a, c: ε_a = (1/4 + 1/2) / 2 = 0.375,
    #   ε_b = (1/2 + 1) / 2 = 0.75, ε_c = (1 + 1/4) / 2 = 0.625; targets a 1, c 1/2:
    #   EE-L = 0.390625 + 0.5625 + 0.015625 = 0.96875
    # q2: draw 0 ranks e, d; draw 1 d, f, e: ε_d = (1/2 + 1) / 2 = 0.75,
    #   ε_e = (1 + 1/4) / 2 = 0.625, ε_f = 1/4; target d 1:
    #   EE-L = 0.0625 + 0.390625 + 0.0625 = 0.515625
    data = {
        **SAMPLED,
        "other": [-x for x in SAMPLED["score"]],
        "seg": ["x" if q == "q1" else "y" for q in SAMPLED["query"]],
    }
    frame = make_frame(data)
    rbp = {"browsing": "rbp", "patience": 0.5}
    ev = frame.rank_eval(sample="draw", score=["score", "other"])
    got = as_pandas(ev.evaluate(["ee_l"], by="seg", **rbp)).sort_values(["seg", "system"])
    assert got["expected_exposure(browsing=rbp,patience=0.5)"].tolist() == pytest.approx(
        [0.96875, 0.21875, 0.515625, 0.765625], abs=1e-12
    )  # x: other, score; y: ...
    assert got["n_queries"].tolist() == [1, 1, 1, 1]
    # the paired delta: (0.96875 + 0.515625) / 2 - (0.21875 + 0.765625) / 2 = 0.25
    compared = as_pandas(ev.compare(["ee_l"], **rbp))
    row = compared[compared["system"] == "other"].iloc[0]
    assert row["delta"] == pytest.approx(0.25, abs=1e-12)


def test_sampled_rankings_bad_input(make_frame: FrameMaker) -> None:
    frame = make_frame(SAMPLED)
    bound = frame.rank_eval(sample="draw")
    with pytest.raises(InvalidOptionError, match=r"sample column 'draw'.*'mrr'.*expected_exp"):
        run(frame, lambda ev: ev(sample="draw").evaluate(["mrr", "expected_exposure"]))
    with pytest.raises(InvalidOptionError, match=r"sample column 'draw'.*'exposure@3"):
        bound.evaluate(["exposure@3"], item_groups={"a": "x"})
    with pytest.raises(InvalidOptionError, match="browsing='cascade' is not built"):
        bound.evaluate(["expected_exposure"], browsing="cascade")
    with pytest.raises(ColumnNotFoundError, match=r"'drw' \(sample\)"):
        run(frame, lambda ev: ev(sample="drw").expected_exposure())
    with pytest.raises(InvalidOptionError, match=r"four different columns.*sample='query'"):
        run(frame, lambda ev: ev(sample="query").expected_exposure())
    # the same item twice in one sampled ranking
    twice = make_frame({k: [*v, v[0]] for k, v in SAMPLED.items()})
    with pytest.raises(InvalidDataError, match=r"Item 'a' appears 2 times in query \('q1', 1\)"):
        run(twice, lambda ev: ev(sample="draw").expected_exposure())
    # two grades of one item in the samples of a query
    regraded = make_frame({**SAMPLED, "relevant": [1, 1, 0, 2, 0, 1, 0, 0, 0, 1, 1]})
    with pytest.raises(InvalidDataError, match=r"Item 'a' has the grades 1.0 and 2.0"):
        run(regraded, lambda ev: ev(sample="draw").expected_exposure())


def _ee_by_a_plain_loop(frame: pd.DataFrame, patience: float) -> tuple[float, float, float]:
    """EE-L, EE-D, EE-R of one query's sampled rankings (column "draw") under RBP: ε the
    mean over the draws of p^(rank - 1); ε* by grade tiers, (A(b + m) - A(b)) / m."""
    draws = frame["draw"].unique()
    epsilon: dict[str, float] = {}
    for draw in draws:
        ranked = frame[frame["draw"] == draw].sort_values("score", ascending=False)
        for rank, item in enumerate(ranked["item"], start=1):
            epsilon[item] = epsilon.get(item, 0.0) + patience ** (rank - 1) / len(draws)
    grades = frame.drop_duplicates("item").set_index("item")["relevant"]
    target, before = {}, 0
    for grade in sorted({g for g in grades if g > 0}, reverse=True):
        tier = [d for d, g in grades.items() if g == grade]
        positions = range(before, before + len(tier))
        share = sum(patience**i for i in positions) / len(tier)
        target.update(dict.fromkeys(tier, share))
        before += len(tier)
    items = set(epsilon) | set(target)
    e = np.array([epsilon.get(d, 0.0) for d in items])
    t = np.array([target.get(d, 0.0) for d in items])
    return float(((e - t) ** 2).sum()), float((e**2).sum()), float((e * t).sum())


def test_docs_sampled_rankings_example() -> None:
    """docs/fairness.md's sampled-rankings doctest: its frame and its printed numbers,
    recomputed by a plain loop."""
    from pathlib import Path

    from helpers import doctest_outputs

    text = (Path(__file__).parents[2] / "docs" / "fairness.md").read_text()
    section = text[text.index("### Sampled rankings") : text.index("## TREC Fair Ranking")]
    (block,) = doctest_outputs(section)
    draws = pd.DataFrame(
        {
            "query": ["q1"] * 6,
            "draw": [0, 0, 0, 1, 1, 1],
            "item": ["a", "b", "c", "c", "a", "b"],
            "score": [3.0, 2.0, 1.0] * 2,
            "relevant": [2, 0, 1, 1, 2, 0],
        }
    )
    for line in (
        '"query": ["q1"] * 6, "draw": [0, 0, 0, 1, 1, 1],',
        '"item": ["a", "b", "c", "c", "a", "b"], "score": [3.0, 2.0, 1.0] * 2,',
        '"relevant": [2, 0, 1, 1, 2, 0]})',
    ):
        assert line in section  # the page's frame is this test's
    assert block == [repr(_ee_by_a_plain_loop(draws, 0.5))]
    # and the plain loop agrees with the by-hand example of the tests
    sampled = pd.DataFrame(SAMPLED)
    for q, want in zip(
        ["q1", "q2"], zip(SAMPLED_L, SAMPLED_D, SAMPLED_R, strict=True), strict=True
    ):
        assert _ee_by_a_plain_loop(sampled[sampled["query"] == q], 0.5) == pytest.approx(want)


def test_sample_data_example_recomputed_by_pandas() -> None:
    """docs/fairness.md's example on the sample data, recomputed by pandas: each model's top
    10 per user (score descending, ties by item id descending as trec_eval), attention
    1/log2(1 + rank), the head items' share of it; merit = the head items' share of the
    user's grades; the means over the users (the gap over users with a relevant item)."""
    from pathlib import Path

    from helpers import doctest_outputs
    from rankframe.datasets import recommendations

    data = recommendations()
    counts = data["item_id"].value_counts()
    data = data.assign(head=data["item_id"].isin(counts.index[counts >= 8]))
    # merit: the head items' share of each user's grades (users with a grade only)
    grades = data.groupby("user_id")["relevant"].sum()
    head_grades = data[data["head"]].groupby("user_id")["relevant"].sum()
    merit = (head_grades.reindex(grades.index, fill_value=0) / grades)[grades > 0]
    want: dict[tuple[str, str], tuple[float, int]] = {}
    gaps = {}
    for system in ("model_a", "model_b"):
        ranked = data[data[system].notna()].sort_values(
            ["user_id", system, "item_id"], ascending=[True, False, False]
        )
        ranked = ranked[ranked.groupby("user_id").cumcount() < 10]
        rank = ranked.groupby("user_id").cumcount().to_numpy() + 1
        ranked = ranked.assign(attention=1 / np.log2(1 + rank))
        total = ranked.groupby("user_id")["attention"].sum()
        on_head = ranked[ranked["head"]].groupby("user_id")["attention"].sum()
        share = on_head.reindex(total.index, fill_value=0) / total
        gap = share.reindex(merit.index) - merit
        want[system, "exposure(group=head)"] = (float(share.mean()), len(share))
        want[system, "exposure_gap(empty=skip,group=head)"] = (float(gap.mean()), len(gap))
        gaps[system] = gap
    text = (Path(__file__).parents[2] / "docs" / "fairness.md").read_text()
    section = text[text.index("## On the sample data") : text.index("## Gaps between")]
    (block,) = doctest_outputs(section)
    printed = {}
    for line in block[1:]:
        _, system, metric, _, _, value, n = line.split()
        printed[system, metric] = (float(value), int(n))
    assert set(printed) == set(want)
    for key, (value, n) in want.items():
        assert printed[key] == (round(value, 4), n), key
    # the prose: the head items' share of the 1,995 items, and compare()'s paired t-test of
    # the change of the gap (scipy's)
    from scipy import stats

    head = int((counts >= 8).sum())
    assert f'("head", {head} of the {len(counts):,} items)' in " ".join(section.split())
    change = gaps["model_b"] - gaps["model_a"]
    p = float(stats.ttest_rel(gaps["model_b"], gaps["model_a"]).pvalue)
    assert f"a change of {change.mean():.4f}, p = {p:.2f}" in " ".join(section.split())


def test_only_the_expected_exposure_metrics_take_samples(make_frame: FrameMaker) -> None:
    """Over the whole registry: a bound sample column is refused, naming it, by every metric
    but the three that average over samples, which take it."""
    import re

    from helpers import RELEVANCE, parameters
    from rankframe import Metric
    from rankframe.metrics.registry import METRICS

    bound = make_frame(SAMPLED).rank_eval(sample="draw")
    taking = {"expected_exposure", "ee_disparity", "ee_relevance"}
    for name, definition in METRICS.items():
        k = parameters(name, (3,))[-1] if name in RELEVANCE else (3 if definition.takes_k else None)
        metric = Metric(name, k)
        if name in taking:
            assert len(as_pandas(bound.evaluate([metric]))) == 1
            continue
        label = re.escape(f"'{metric}'")
        with pytest.raises(InvalidOptionError, match=rf"sample column 'draw'.*{label}"):
            bound.evaluate([metric])
    make_frame.check_unchanged()
