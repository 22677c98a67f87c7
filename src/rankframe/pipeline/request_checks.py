"""What no data can fix, checked before a request is built (by
:func:`rankframe.pipeline.steps.check_request`): a metric that does not read a bound
``sample`` column, a ``ties`` option a metric does not define.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankframe.exceptions import InvalidOptionError, Keyword, OptionName
from rankframe.metrics.registry import METRICS, Metric, MetricDef
from rankframe.settings.options import TIES, Options

__all__ = ["check_average", "check_samples", "check_shared_ranks", "reads_shared_ranks"]


def check_samples(metrics: Sequence[Metric], sample: str | None, options: Options) -> None:
    """Raise at call time when a ``sample`` column is bound and a metric does not read
    sampled rankings (``ItemMetric.samples``), or under the cascade browsing model
    (its attention depends on the items above in the same sampled ranking, which the
    entries do not carry across parts)."""
    if sample is None:
        return
    refused = [str(m) for m in metrics if not takes_samples(m.definition)]
    if refused:
        taking = [name for name, d in METRICS.items() if takes_samples(d)]
        msg = (
            f"The sample column {sample!r} is bound (several sampled rankings per query), "
            f"and {', '.join(map(repr, refused))} "
            f"{'reads' if len(refused) == 1 else 'read'} one ranking per query; only "
            f"{', '.join(taking)} average over samples. Evaluate the others without "
            "sample= (df.rank_eval without it, on one ranking per query, e.g. "
            f"df[df[{sample!r}] == first_sample]), or in a separate call."
        )
        raise InvalidOptionError(msg)
    if any(m.options_in(options).browsing == "cascade" for m in metrics):
        msg = (
            f"browsing='cascade' is not built for sampled rankings (sample={sample!r}): a "
            "cascade's attention depends on the relevant items above in the same sampled "
            "ranking. Pass browsing='log' or 'rbp', or evaluate one sample at a time."
        )
        raise InvalidOptionError(msg)


def takes_samples(definition: MetricDef) -> bool:
    return definition.items is not None and definition.items.samples


def reads_shared_ranks(definition: MetricDef) -> bool:
    """Whether a metric reads ranks that tied rows may share (``ties="truncated_average"``,
    Evidently's convention), as it declares (``MetricDef.shared_ranks``)."""
    return definition.shared_ranks


def check_shared_ranks(metrics: Sequence[Metric]) -> None:
    refused = [m.bare for m in metrics if not reads_shared_ranks(m.definition)]
    if refused:
        msg = (
            Keyword("ties", "truncated_average"),
            " (tied items share one rank, as Evidently) "
            f"is not defined for {', '.join(map(repr, refused))}: they read one position per "
            "item. Pass another ",
            OptionName("ties"),
            " for them (",
            Keyword("ties", "first"),
            " keeps the frame's order), or evaluate them in a separate call.",
        )
        raise InvalidOptionError(msg)


def check_average(metrics: Sequence[Metric], options: Options) -> None:
    """``ties="average"`` needs each metric's tie-averaged form (``MetricDef.tie_average``), and
    AP's denominator must not depend on the order (``ap_denominator="hits"`` does)."""
    by_hits = [
        m.name
        for m in metrics
        if "ap_denominator" in m.definition.options
        and m.options_in(options).ap_denominator == "hits"
    ]
    if by_hits:
        msg = (
            Keyword("ties", "average"),
            " cannot be combined with ",
            Keyword("ap_denominator", "hits"),
            f" for {by_hits[0]!r}: the number of hits in "
            "the top k then depends on the order of tied items, and the expected ratio has no "
            "closed form here. Pass another ",
            OptionName("ties"),
            " (torchmetrics orders tied items as torch.topk does; ",
            Keyword("ties", "first"),
            " keeps the frame's order), or another ap_denominator.",
        )
        raise InvalidOptionError(msg)
    missing = [m.bare for m in metrics if m.definition.tie_average is None]
    if not missing:
        return
    having = [name for name, d in METRICS.items() if d.tie_average is not None]
    others = [repr(c) for c in TIES.choices if c != "average"]
    refusal = (
        Keyword("ties", "average"),
        " (the expected value over the orders of tied items) is "
        f"not defined for {', '.join(map(repr, missing))}. It is defined for "
        f"{', '.join(having)}; for {'these' if len(missing) > 1 else 'this'} pass another ",
        OptionName("ties"),
        f" ({', '.join(others)}), or evaluate "
        f"{'them' if len(missing) > 1 else 'it'} in a separate call.",
    )
    raise InvalidOptionError(refusal)
