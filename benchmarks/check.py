"""The correctness check run before timing: every tool's values on the same data.

pytrec_eval per query (the reference), the other peers by their means against the range of
rankframe's means over the tie policies (:func:`agree`), and every measure of trec_eval's
``all_trec`` against pytrec_eval's (:func:`agree_all_trec`).
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pandas as pd
from harness import METRICS, TOLERANCE, Laps, bare, load_pandas, log
from peers import (
    APPROACHES,
    EXACT_PEERS,
    PEERS,
    missing_modules,
    pytrec_dicts,
    pytrec_measures,
)

NOT_METRICS = ("runid", "num_q", "relstring")  # trec_eval measures that are not metrics
GEOMETRIC = ("gm_map", "gm_bpref")  # pytrec_eval's per-query value: log(max(value, 1e-5))


def rankframe_per_query(frame: pd.DataFrame, ties: str) -> dict[str, np.ndarray]:
    """rankframe's per-query values in sorted query order (plus ``mrr`` without cut-off)."""
    table = frame.rank_eval.per_query([*METRICS, "mrr"], ties=ties).sort_values("query")
    table = table.rename(columns=bare)  # mrr@10(ties=optimistic) is mrr@10
    return {m: table[m].to_numpy() for m in [*METRICS, "mrr"]}


TIES = ("trec", "pessimistic", "optimistic")
SLACK = 1e-6  # torchmetrics computes in float32


def tie_range(per_query: dict[str, dict[str, np.ndarray]]) -> dict[str, tuple[float, float]]:
    """Per metric, the lowest and highest mean over the tie policies."""
    means = {m: [float(values[m].mean()) for values in per_query.values()] for m in METRICS}
    return {m: (min(v), max(v)) for m, v in means.items()}


def torchmetrics_convention(frame: pd.DataFrame) -> dict[str, dict[str, np.ndarray]]:
    """rankframe's per-query values in torchmetrics' conventions, for each tie policy.

    torchmetrics (>= 1.7.4) zeroes the target of a row whose score is <= 0 for RR, AP, P and R
    (still counted in R for recall): rankframe's "judged but not retrieved", a null score.
    Its AP@k divides by the hits in the top k, not by R: AP@k * R / hits@k, which is
    map@100 / recall@100.
    """
    unretrieved = frame.assign(score=frame["score"].where(frame["score"] > 0))
    out = {}
    for ties in TIES:
        plain = rankframe_per_query(frame, ties)
        values = rankframe_per_query(unretrieved, ties)
        ap, recall = values["map@100"], values["recall@100"]
        values["map@100"] = np.divide(ap, recall, out=np.zeros_like(ap), where=recall > 0)
        values["ndcg@10"], values["acc@5"] = plain["ndcg@10"], plain["acc@5"]
        out[ties] = values
    return out


def agree(size: str, only: list[str] | None = None) -> dict[str, Any]:
    """Values of every tool on the same data, compared with rankframe's.

    pytrec_eval per query to 1e-9 (always, when installed: it is the reference). The others
    by the mean of each metric, against the range of rankframe's means under
    ``ties="pessimistic"``, ``"trec"`` and ``"optimistic"``: a peer that orders tied scores
    its own way lands inside it (for torchmetrics, rankframe's values are first put in
    torchmetrics' conventions, see :func:`torchmetrics_convention`). With ``only`` (the
    ``--only`` list), the other approaches are not compared.
    """
    import rankframe  # noqa: F401

    frame = load_pandas(size)
    per_query = {ties: rankframe_per_query(frame, ties) for ties in TIES}
    reference = {m: float(v.mean()) for m, v in per_query["trec"].items()}
    ranges = {"default": tie_range(per_query)}
    if not missing_modules(APPROACHES["torchmetrics"]) and (only is None or "torchmetrics" in only):
        ranges["torchmetrics"] = tie_range(torchmetrics_convention(frame))
    out: dict[str, Any] = {"reference": reference, "n_queries": len(per_query["trec"]["mrr"])}

    if not missing_modules(APPROACHES["pytrec_eval"]):
        import pytrec_eval

        qrels, trec_run = pytrec_dicts(frame)
        measures = {"recip_rank", "ndcg_cut.10", "map_cut.100", "success.5", "P.10", "recall.100"}
        trec = pytrec_measures(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(trec_run))
        out["pytrec_eval_per_query"] = {
            m: float(np.abs(trec[m] - per_query["trec"][m]).max()) for m in trec
        }
        del qrels, trec_run

    for name in ("rankframe_polars", "rankframe_lazy", *PEERS):
        approach = APPROACHES[name]
        if only is not None and name not in only:
            out[name] = {"status": "not run (--only)"}
            continue
        if missing_modules(approach):
            out[name] = {"status": "not installed"}
            continue
        log(f"  agreement: {name}")
        _, run = approach.prepare(size)
        values = run(Laps())
        del run
        gc.collect()
        bounds = ranges.get(name, ranges["default"])
        if name in EXACT_PEERS:  # trec_eval's tie order: rankframe's own values, per query
            frame_in = approach.prepare(size)[0]
            theirs = EXACT_PEERS[name](frame_in)
            theirs = theirs.to_pandas() if hasattr(theirs, "to_pandas") else theirs
            out[f"{name}_per_query"] = {
                m: float(np.abs(theirs[m].to_numpy() - per_query["trec"][m]).max()) for m in METRICS
            }
            del frame_in, theirs
        out[name] = {
            "values": values,
            "diff": {m: values[m] - reference[m] for m in METRICS},
            "range": bounds,
            "within_ties": {
                m: bounds[m][0] - SLACK <= values[m] <= bounds[m][1] + SLACK for m in METRICS
            },
        }
    return out


def family(name: str) -> str:
    """The trec_eval measure of a printed name: ``P_5`` is ``P``, ``iprec_at_recall_0.10``
    is ``iprec_at_recall``."""
    root, _, parameter = name.rpartition("_")
    return root if root and parameter.replace(".", "", 1).isdigit() else name


def agree_all_trec(size: str) -> dict[str, Any]:
    """pytrec_eval's all_trec against rankframe's, per query and for `all`, by family.

    Per query: every measure with a per-query value (not the geometric means, whose
    per-query value pytrec_eval gives as a logarithm). `all`: rankframe's ``evaluate``
    against trec_eval's aggregates of pytrec_eval's per-query values (the mean; the sum of
    the ``num_*`` counts; ``exp`` of the mean of the logarithms for ``gm_map``, ``gm_bpref``).
    """
    import pytrec_eval

    from rankframe import parse_metric

    frame = load_pandas(size)
    qrels, trec_run = pytrec_dicts(frame)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(trec_run)
    del qrels, trec_run
    queries = sorted(trec)
    names = [n for n in next(iter(trec.values())) if n not in NOT_METRICS]
    column = {n: str(parse_metric(n)) for n in names}
    per_query = [n for n in names if n not in GEOMETRIC]
    ours = frame.rank_eval.per_query([column[n] for n in per_query]).set_index("query")
    ours = ours.loc[queries]
    means = frame.rank_eval.evaluate([column[n] for n in names]).iloc[0]
    families: dict[str, dict[str, float]] = {}
    for name in names:
        theirs = np.array([trec[q][name] for q in queries])
        entry = families.setdefault(family(name), {"values": 0, "per_query": 0.0, "all": 0.0})
        if name in GEOMETRIC:
            want = float(np.exp(theirs.mean()))
        else:
            want = float(theirs.sum() if name.startswith("num_") else theirs.mean())
            diff = float(np.abs(ours[column[name]].to_numpy() - theirs).max())
            entry["values"] += len(queries)
            entry["per_query"] = max(entry["per_query"], diff)
        entry["all"] = max(entry["all"], abs(float(means[column[name]]) - want))
    return {"n_queries": len(queries), "n_measures": len(names), "families": families}


def report_agreement(agreement: dict[str, Any]) -> None:
    if "reference" not in agreement:
        log(f"  agreement check did not run: {agreement.get('status')}")
        return
    per_query = agreement.get("pytrec_eval_per_query")
    if per_query is not None:
        worst = max(per_query.values())
        verdict = "identical" if worst <= TOLERANCE else "DIFFERENT"
        log(f"  pytrec_eval per query: max abs diff {worst:.2e} -> {verdict}")
    for name in EXACT_PEERS:
        if (exact := agreement.get(f"{name}_per_query")) is not None:
            worst = max(exact.values())
            verdict = "identical" if worst <= TOLERANCE else "DIFFERENT"
            log(
                f"  {name} per query vs rankframe (ties='trec'): max abs diff {worst:.2e}"
                f" -> {verdict}"
            )
    for name in ("rankframe_polars", "rankframe_lazy", *PEERS):
        entry = agreement.get(name, {})
        if "diff" in entry:
            worst = max(abs(d) for d in entry["diff"].values())
            within = all(entry["within_ties"].values())
            log(
                f"  {name}: max abs diff of the means {worst:.2e}"
                f"{'' if within else ' (outside the range of tie orders)'}"
            )
