"""The options of a call, bound into its metrics: each metric's own options and the ones
of the ranking, one per call (:func:`bind_options`); the labels a call's metrics get
(:func:`labels`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from rankframe.exceptions import InvalidOptionError, Keyword
from rankframe.metrics.registry.declaration import Metric
from rankframe.metrics.registry.parsing import parse_metrics
from rankframe.settings.conventions import preset_options
from rankframe.settings.options import OPTIONS, Options

__all__ = ["bind_options", "labels"]


def _conflict(name: str, first: str, *second: str | Keyword) -> InvalidOptionError:
    return InvalidOptionError(
        (
            f"{first} but ",
            *second,
            f". {name!r} is one per call: the ranking or the per-query "
            "lists that every metric of the call reads depend on it. Evaluate these metrics in "
            "separate calls, or give them the same value.",
        )
    )


def bind_options(
    metrics: Sequence[Metric],
    call: Options,
    explicit: Collection[str] = (),
    convention: str | None = None,
) -> tuple[list[Metric], Options]:
    """Each metric with the options it is computed with, and the call's options.

    A metric's options are those its label wrote, else the call's (``explicit``: the
    keywords passed, or set by the call's ``convention`` preset). An option a metric reads
    alone (``beta``, ``gain``, ``denominator``, ...: ``OptionDef.per_call`` False) may
    differ between the metrics of a call, and a label's value wins over the call's keyword.
    An option of the ranking or the lists (``ties``, ``min_relevance``, ``unjudged``,
    ``judged_only``, ``empty``, ``negative_gains``) is one per call: a label's value
    applies to the whole call (every metric that takes it is then labelled with it), and
    a label that disagrees with the call's keyword or with another label raises
    :class:`InvalidOptionError`.

    Returns the metrics (exact repeats dropped), whose ``str`` is then their label, and the
    call's options with the per-call values, every option a metric reads alone at its
    default (each metric's are in its ``options``: :meth:`Metric.options_in`).
    """
    per_call: dict[str, Any] = {}
    for name, option in OPTIONS.items():
        if not (option.per_call and option.labelled):
            continue
        said: dict[Any, Metric] = {}  # value -> the first label that says it
        for m in metrics:
            if name in _given(m) and name in m.definition.label_options():
                said.setdefault(dict(m.options).get(name, option.default), m)
        if name in explicit:
            value = getattr(call, name)
            for v, m in said.items():
                if v != value:
                    raise _conflict(
                        name,
                        f"Metric {str(m)!r} says {name}={option.write(v)}",
                        "the call passes ",
                        Keyword(name, value),
                    )
        elif len(said) > 1:
            (v1, m1), (v2, m2) = list(said.items())[:2]
            raise _conflict(
                name,
                f"Metric {str(m1)!r} says {name}={option.write(v1)}",
                f"{str(m2)!r} says {name}={option.write(v2)}",
            )
        elif said:
            per_call[name] = next(iter(said))
    call = dataclasses.replace(call, **per_call) if per_call else call
    _check_condensed(metrics, call, explicit)
    bound = []
    for m in metrics:
        own, given = dict(m.options), _given(m)
        values = {}
        for name, option in m.definition.label_options().items():
            if option.per_call or name not in given:
                value = getattr(call, name)
            else:
                value = own.get(name, option.default)
            if value != option.default:
                values[name] = value
        bound.append(
            Metric(
                m.name,
                m.k,
                tuple(sorted(values.items())),
                m.convention or convention,
                frozenset(given),
            )
        )
    # a metric with a value per group stands for one metric per group (MetricDef.expand)
    bound = [
        e for m in bound for e in (m.definition.expand(m, call) if m.definition.expand else [m])
    ]
    alone = {n: o.default for n, o in OPTIONS.items() if o.labelled and not o.per_call}
    return list(dict.fromkeys(bound)), dataclasses.replace(call, **alone)


def _check_condensed(metrics: Sequence[Metric], call: Options, explicit: Collection[str]) -> None:
    """``unjudged="condense"`` ranks only the judged rows, which ``judged_only=False`` said
    explicitly (a keyword, a preset or a label) contradicts: an error naming both."""
    if call.unjudged != "condense" or call.judged_only:
        return
    labelled = [m for m in metrics if "judged_only" in _given(m)]
    if "judged_only" not in explicit and not labelled:
        return  # judged_only at its default: unjudged="condense" alone says it
    said = (
        f"metric {str(labelled[0])!r} says judged_only=false"
        if labelled
        else "the call passes judged_only=False"
    )
    msg = (
        f"unjudged='condense' ranks only the judged rows (it is judged_only=True), but {said}, "
        "which keeps the unjudged rows. Drop judged_only=False to condense "
        "the lists, or pass unjudged='nonrelevant' to keep the unjudged rows as non-relevant."
    )
    raise InvalidOptionError(msg)


def _given(metric: Metric) -> frozenset[str]:
    """The options a metric's label says (at any value, defaults too)."""
    return metric.given | {n for n, _ in metric.options}


def labels(
    specs: str | Metric | Iterable[str | Metric], chosen: Mapping[str, Any] | None = None
) -> list[str]:
    """The output labels of ``specs`` evaluated with the keyword options ``chosen`` (and
    its ``convention``, whose preset fills the options not given): the column names of
    ``evaluate(specs, **chosen)``.

    Examples
    --------
    >>> labels(["f1@5", "mrr@10", "ndcg@10"], {"beta": 2, "gain": "exponential"})
    ['f1@5(beta=2)', 'mrr@10', 'ndcg@10(gain=exponential)']
    """
    given = {n: v for n, v in (chosen or {}).items() if n in OPTIONS}
    convention = (chosen or {}).get("convention")
    given.update(preset_options(convention, given, OPTIONS))
    bound, _ = bind_options(parse_metrics(specs), Options(**given), given, convention)
    return [str(m) for m in bound]
