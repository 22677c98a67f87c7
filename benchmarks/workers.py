"""What one worker subprocess does (``run.py --worker NAME``): time one approach, measure
what validation costs, or run an agreement check; its result is the JSON it prints.
"""

from __future__ import annotations

import argparse
import contextlib
import warnings
from typing import Any

import numpy as np
from check import agree, agree_all_trec
from harness import (
    GIB,
    METRICS,
    Laps,
    Run,
    Values,
    deep_size_gib,
    load_pandas,
    means_of,
    settle,
    timed,
)
from peers import APPROACHES

from data import SIZES


def measure(name: str, size: str, repeat: int) -> dict[str, Any]:
    """Load, then time one approach; the JSON a worker prints."""
    frame, run = APPROACHES[name].prepare(size)
    baseline = settle()
    result = timed(run, repeat, baseline)
    return {
        "approach": name,
        "size": size,
        "shape": SIZES[size],
        "rss_after_load_gib": baseline / GIB,
        "input_gib": None if frame is None else deep_size_gib(frame),
        "n_rows": None if frame is None else len(frame),
        **result,
    }


def measure_validation(size: str, repeat: int) -> dict[str, Any]:
    """What validation costs, two ways, on the same frame.

    Alone: the input contract's check (``rankframe.pipeline.validation``, what the accessor
    runs) and
    the duplicate-item check, each timed by itself (their CPU
    cost). In place: ``evaluate`` as shipped and ``evaluate`` with both patched out; the
    difference is what validation adds to the wall-clock time (the engine runs the duplicate
    check in a second thread beside the ranking on large frames). Uses rankframe internals:
    if they change, the worker fails and the report says "not measured".
    """
    from unittest import mock

    from rankframe import engine as _engine
    from rankframe.adapters import pandas as pandas_adapter
    from rankframe.adapters.pandas import PandasBackend
    from rankframe.api.accessor import ColumnNames
    from rankframe.pipeline import validation as _validation

    frame = load_pandas(size)
    extracted = PandasBackend(frame).extract(ColumnNames(), [])  # the engine's input arrays

    def unvalidated(_: Laps) -> Values:
        # the adapter starts hashing the items (for the duplicate check) while it encodes
        # the queries: that goes too
        with (
            mock.patch.object(PandasBackend, "_validate", return_value=None),
            mock.patch.object(
                _engine, "unique_items_checked", return_value=contextlib.nullcontext()
            ),
            mock.patch.object(pandas_adapter, "_hash", return_value=np.zeros(0, dtype=np.uint64)),
        ):
            return means_of(frame.rank_eval.evaluate(METRICS))

    def schema_alone(_: Laps) -> Values:
        names = ColumnNames()
        _validation.raise_for(_validation.pandas_facts(frame, names), names, flavour="pandas")
        return {}

    def duplicates_alone(_: Laps) -> Values:
        _engine.check_unique_items(extracted, "query", "item")
        return {}

    parts: dict[str, Run] = {
        "schema": schema_alone,
        "duplicates": duplicates_alone,
        "evaluate": lambda _: means_of(frame.rank_eval.evaluate(METRICS)),
        "unvalidated": unvalidated,
    }
    baseline = settle()
    return {name: timed(run, repeat, baseline) for name, run in parts.items()}


def worker(args: argparse.Namespace) -> dict[str, Any]:
    warnings.filterwarnings("ignore")  # numba's and torch's chatter; results are checked
    if args.worker == "agree":
        return agree(args.size, args.only.split(",") if args.only else None)
    if args.worker == "validation":
        return measure_validation(args.size, args.repeat)
    if args.worker == "agree_all_trec":
        return agree_all_trec(args.size)
    return measure(args.worker, args.size, args.repeat)
