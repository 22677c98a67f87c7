"""Metric strings read into metrics: ``"ndcg@10"``, trec_eval's spellings (``"P_10"``,
``"P.5,10"``), labels with options (``"f1@5(beta=2)"``), named sets; did-you-mean for an
unknown name; trec_eval's name of a metric (:func:`trec_label`)."""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Iterable
from typing import Any

from rankframe._suggest import closest, did_you_mean
from rankframe.exceptions import InvalidOptionError, UnknownMetricError
from rankframe.metrics.params import CUTOFF
from rankframe.metrics.registry.declaration import METRICS, Metric, MetricDef, preset_of
from rankframe.metrics.registry.lookup import (
    NAMED_SETS,
    definition_of,
    fixed_metric,
    fixed_metrics,
    known_spellings,
    trec_defaults_of,
)
from rankframe.settings.conventions import CONVENTION
from rankframe.settings.options import OPTIONS

__all__ = ["check_k", "parse_metric", "parse_metrics", "trec_label"]

_AT = re.compile(r"^(?P<name>.+?)\s*@\s*(?P<k>[^@]*)$")
_CUT = re.compile(r"^(?P<name>.+?)_(?P<k>[0-9]*\.?[0-9]+)$")
_NUMBER = re.compile(r"^[0-9]*\.?[0-9]+$")


def check_k(k: object, metric: str) -> int | float | None:
    """Validate a metric's parameter (a positive integer cut-off for most) or ``None``."""
    if k is None:
        return None
    param = METRICS[metric].param if metric in METRICS else CUTOFF
    if param.integer:
        if isinstance(k, numbers.Integral) and not isinstance(k, bool) and param.check(int(k)):
            return int(k)
    elif (
        isinstance(k, numbers.Real)
        and not isinstance(k, bool)
        and math.isfinite(float(k))
        and param.check(float(k))
    ):
        return float(k)
    msg = f"The 'k' parameter of {metric} must be {param.allowed} or None. Got {k!r} instead."
    raise InvalidOptionError(msg)


def _parameter(spec: str, definition: MetricDef, text: str) -> int | float:
    """The parameter written in ``spec`` (``text``: ``"10"``, ``"0.20"``), checked."""
    param = definition.param
    if text.isascii() and (text.isdigit() if param.integer else bool(_NUMBER.match(text))):
        value = check_k(int(text) if param.integer else float(text), definition.name)
        assert value is not None  # a number was given
        return value
    msg = (
        f"The {param.what} in metric {spec!r} must be {param.allowed}, as in "
        f"'{definition.name}@{param.example}'. Got {text!r} instead."
    )
    raise InvalidOptionError(msg)


def _required(spec: str, definition: MetricDef) -> InvalidOptionError:
    param = definition.param
    trec = f" (trec_eval: '{definition.trec_cut}_{param.label(float(param.example))}')"
    return InvalidOptionError(
        f"{definition.name} takes a {param.what}: {param.allowed}, as in "
        f"'{definition.name}@{param.example}'{trec if definition.trec_cut else ''}; got "
        f"{spec!r}. evaluate, per_query and compare expand {spec.strip()!r} into trec_eval's "
        f"default {param.what}s."
    )


def _top_level(text: str) -> list[str]:
    """``text`` split at its commas outside parentheses: ``"ndcg(discount=log2(max(rank,2))),
    map"`` is two pieces."""
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def _unbalanced(spec: str) -> InvalidOptionError:
    return InvalidOptionError(
        f"Metric {spec!r} has unbalanced parentheses; a label writes its options in one pair "
        "after the metric, as in 'f1@5(beta=2)' or 'ndcg@10(gain=exponential,ties=first)'."
    )


def _without_options(text: str, spec: str) -> tuple[str, str | None]:
    """``text`` (lower case) without its options in parentheses, and the text inside them
    (``None``: none): ``"f1@5(beta=2)"`` and ``"f1(beta=2)@5"`` (the tidy ``metric``
    column and its ``k``) are both ``("f1@5", "beta=2")``."""
    start = text.find("(")
    if start < 0:
        if ")" in text:
            raise _unbalanced(spec)
        return text, None
    depth = 0
    for end in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            break
    else:
        raise _unbalanced(spec)
    rest = text[end + 1 :].strip()
    if "(" in rest or ")" in rest:
        raise _unbalanced(spec)
    if rest and not rest.startswith("@"):
        msg = (
            f"Metric {spec!r} has {rest!r} after its options; write the options last, as in "
            "'f1@5(beta=2)'."
        )
        raise InvalidOptionError(msg)
    return text[:start].rstrip() + rest, text[start + 1 : end]


def _not_taken(definition: MetricDef, name: str, spec: str) -> InvalidOptionError:
    """The error of an option a metric's label may not name, with the ones it may."""
    declared = definition.label_options()
    takes = f" Options of {definition.name}: {', '.join([*declared, 'convention'])}."
    option = OPTIONS.get(name)
    if option is not None and not option.labelled:
        return InvalidOptionError(
            f"Metric {spec!r} names the option {name!r}, an input (data, as the frame "
            f"itself) that labels do not hold; pass {name}=... to the method instead.{takes}"
        )
    if option is not None:
        takers = [d.name for d in METRICS.values() if name in d.label_options()]
        return InvalidOptionError(
            f"Metric {spec!r}: {definition.name} does not take the option {name!r} (it "
            f"changes {', '.join(takers)}).{takes}"
        )
    hint = did_you_mean(closest(name, [*declared, "convention"], cutoff=0.6)[:1])
    return InvalidOptionError(f"Metric {spec!r} names an unknown option {name!r}.{hint}{takes}")


def _with_options(metric: Metric, text: str, spec: str) -> Metric:
    """``metric`` with the options a label writes in ``text`` (``"beta=2,ties=first"``,
    lower case): read as each option declares (``OptionDef.read``), checked, a preset
    (``convention=lenskit``) first and the options written beside it over it."""
    definition = metric.definition
    declared = definition.label_options()
    written: dict[str, Any] = {}
    convention: str | None = None
    for piece in _top_level(text) if text.strip() else []:
        name, equals, value = (part.strip() for part in piece.partition("="))
        if not equals or not name or not value:
            msg = (
                f"Metric {spec!r}: {piece.strip()!r} is not an option; write name=value, "
                "separated by commas, as in 'map@10(ties=first,min_relevance=2)'."
            )
            raise InvalidOptionError(msg)
        if name in written or (name == "convention" and convention is not None):
            msg = f"Metric {spec!r} names the option {name!r} twice; name it once."
            raise InvalidOptionError(msg)
        if name not in declared and name != "convention":
            raise _not_taken(definition, name, spec)
        try:
            if name == "convention":
                CONVENTION.validate(value)
                convention = value
            else:
                written[name] = declared[name].read(value)
        except InvalidOptionError as error:
            raise InvalidOptionError((f"Metric {spec!r}: ", *error.parts)) from None
    preset = {} if convention is None else preset_of(definition, convention)
    values = {**preset, **written}
    options = tuple(sorted((n, v) for n, v in values.items() if v != declared[n].default))
    return Metric(metric.name, metric.k, options, convention, frozenset(values))


def _split(spec: str) -> tuple[str, str | None, list[str] | None]:
    """``spec`` (lower case) as (name, parameter after ``@`` or ``_``, parameters after
    ``.``): ``"ndcg@10"``, ``"p_10"``, ``"p.5,10"``."""
    at = _AT.match(spec)
    if at:
        return at["name"], at["k"], None
    name, dot, params = spec.partition(".")
    if dot and (definition_of(name) is not None or fixed_metric(name) is not None):
        return name, None, [p.strip() for p in params.split(",")]
    if definition_of(spec) is None and fixed_metric(spec) is None:
        cut = _CUT.match(spec)
        if cut and definition_of(cut["name"]) is not None:
            return cut["name"], cut["k"], None
    return spec, None, None


def parse_metric(spec: str | Metric, k: int | float | None = None) -> Metric:
    """Parse a metric string into a ``Metric``.

    Accepts ``name`` and ``name@k`` in any case, every alias, and trec_eval's spellings
    (``ndcg_cut_10``, ``P_10``, ``P.10``, ``success_5``, ``recip_rank``, ``map_cut_100``,
    ``Rprec``, ``set_P``, ``iprec_at_recall_0.10``).

    A label names the options that moved a metric from its defaults, in parentheses after
    it: ``f1@5(beta=2)``, ``ndcg@10(gain=exponential)``,
    ``map@10(min_relevance=2,ties=first)``, or a ``convention=`` preset instead of the
    options it sets (``map@10(convention=lenskit)``, options written beside it win over the
    preset's). This is how every output (columns, the tidy ``metric`` column, the command
    line, plots) writes a metric evaluated with options other than the defaults, and
    ``parse_metric`` reads it back to the same metric and options; default options add
    nothing (``mrr@5``). Each option is one a metric takes (``MetricDef.label_options``)
    and its value is read as the option declares (``beta=2`` a number, ``ties=first`` a
    choice) and checked. ``name(options)@k`` (the tidy ``metric`` column, then its ``k``)
    reads the same.

    Parameters
    ----------
    spec
        The metric string, or an already parsed ``Metric``.
    k
        A parameter for a bare name (``parse_metric("ndcg", k=10)``); conflicts with one
        inside ``spec``.

    Raises
    ------
    UnknownMetricError
        The name matches no metric; the message suggests the closest names.
    InvalidOptionError
        The parameter is not allowed (a cut-off must be a positive integer), the metric
        takes none, or it needs one; an option the metric does not take (with the ones it
        takes, or the one meant), or a value the option does not allow.

    Examples
    --------
    >>> parse_metric("map_cut_100")
    Metric(name='map', k=100)
    >>> parse_metric("hit_rate@5")
    Metric(name='acc', k=5)
    >>> parse_metric("iprec_at_recall_0.10")
    Metric(name='iprec', k=0.1)

    Labels with options: F-beta with beta 2, and map@10 under the LensKit preset (which sets
    ``ties="first"``, ``denominator="min_k"``, ...) with a relevance threshold beside it:

    >>> parse_metric("f1@5(beta=2)")
    Metric(name='f1', k=5, options=(('beta', 2.0),))
    >>> str(parse_metric("F1(BETA=2.0)@5")), str(parse_metric("ndcg@10(gain=linear)"))
    ('f1@5(beta=2)', 'ndcg@10')
    >>> m = parse_metric("map@10(convention=lenskit,min_relevance=2)")
    >>> dict(m.options)["denominator"], str(m)
    ('min_k', 'map@10(convention=lenskit,min_relevance=2)')
    >>> parse_metric("mrr@5(beta=2)")
    Traceback (most recent call last):
    ...
    rankframe.exceptions.InvalidOptionError: Metric 'mrr@5(beta=2)': mrr does not take the
    option 'beta' (it changes f1). Options of mrr: empty_list, min_relevance, empty, ...
    """
    if isinstance(spec, Metric):
        return spec if k is None else dataclasses.replace(spec, k=check_k(k, spec.name))
    if not isinstance(spec, str):
        msg = f"A metric must be given as a string such as 'ndcg@10'; got {spec!r}."
        raise UnknownMetricError(msg)
    text, options_text = _without_options(spec.strip().lower(), spec)
    metric = _parse_bare(spec, text, k)
    return metric if options_text is None else _with_options(metric, options_text, spec)


def _parse_bare(spec: str, text: str, k: int | float | None) -> Metric:
    """:func:`parse_metric` of ``text``, the lower-case ``spec`` without options."""
    name, k_text, dotted = _split(text)
    if dotted is not None and len(dotted) > 1:
        msg = (
            f"Metric {spec!r} names {len(dotted)} metrics; evaluate, per_query and compare "
            "expand it (or rankframe.parse_metrics)."
        )
        raise UnknownMetricError(msg)
    if "," in text:
        listed = [s.strip() for s in _top_level(spec)]
        msg = (
            f"Metric {spec!r} names several metrics; pass them as a list, e.g. {listed!r}, "
            "to evaluate, per_query or compare (which also split a comma-separated string)."
        )
        raise UnknownMetricError(msg)
    if dotted is not None:
        k_text = dotted[0]
    found = fixed_metric(name)
    if found is not None:
        fixed, trec_name = found
        if k_text is not None or k is not None:
            msg = f"{trec_name} takes no parameter; got {spec!r}. Use {trec_name!r}."
            raise InvalidOptionError(msg)
        return fixed
    definition = definition_of(name)
    if definition is None:
        raise UnknownMetricError(_unknown_message(spec, text))
    parsed_k = None if k_text is None else _parameter(spec, definition, k_text)
    if k is not None:
        if parsed_k is not None and parsed_k != k:
            msg = f"Metric {spec!r} already has the cut-off {parsed_k}; got k={k!r} as well."
            raise InvalidOptionError(msg)
        parsed_k = check_k(k, definition.name)
    if parsed_k is not None and not definition.takes_k:
        msg = (
            f"{definition.name} takes no cut-off (it is defined on the whole list); "
            f"got {spec!r}. Use {definition.name!r}."
        )
        raise InvalidOptionError(msg)
    if parsed_k is None and definition.param.required:
        raise _required(spec, definition)
    return Metric(definition.name, parsed_k)


def _pieces(spec: str) -> list[str]:
    """A comma-separated string as metric strings: ``"P.5,10, map"`` is ``["P.5,10",
    "map"]`` (a number after a ``name.x`` piece is one more of its parameters)."""
    pieces: list[str] = []
    for part in _top_level(spec):
        part = part.strip()
        number = part.split("(", 1)[0].strip()
        if pieces and _NUMBER.match(number) and "." in pieces[-1] and "@" not in pieces[-1]:
            pieces[-1] = f"{pieces[-1]},{part}"
        elif part:
            pieces.append(part)
    return pieces


def _expand(spec: str, trec: bool, seen: tuple[str, ...] = ()) -> list[Metric]:
    """The metrics one metric string stands for: a named set, ``name.x,y``, a bare name of
    a metric that needs a parameter (with ``trec``: any bare trec_eval name with default
    parameters) give several."""
    text, options_text = _without_options(spec.strip().lower(), spec)
    metrics = _expand_bare(spec, text, trec, seen)
    if metrics is None:
        return [parse_metric(spec)]
    if options_text is None:
        return metrics
    return [_with_options(m, options_text, spec) for m in metrics]


def _expand_bare(spec: str, text: str, trec: bool, seen: tuple[str, ...]) -> list[Metric] | None:
    """:func:`_expand` of ``text``, the lower-case ``spec`` without options; ``None``
    when it is one metric (parsed by :func:`parse_metric`)."""
    if text in NAMED_SETS and text not in seen:
        return [m for s in NAMED_SETS[text] for m in _expand(s, trec, (*seen, text))]
    name, k_text, dotted = _split(text)
    definition = definition_of(name)
    if dotted is not None and len(dotted) > 1 and definition is not None:
        if not definition.takes_k:  # the error of a parameter for a metric that takes none
            return [parse_metric(spec.split(",", 1)[0])]
        return [Metric(definition.name, _parameter(spec, definition, p)) for p in dotted]
    if definition is not None and k_text is None and dotted is None:
        bare_trec = trec and definition.trec_cut is not None and name == definition.trec_cut.lower()
        defaults = trec_defaults_of(definition.name)
        if (definition.param.required or bare_trec) and defaults is not None:
            return [Metric(definition.name, check_k(v, definition.name)) for v in defaults]
    return None


def parse_metrics(
    specs: str | Metric | Iterable[str | Metric], *, trec: bool = False
) -> list[Metric]:
    """Parse one metric string or a list of them, dropping exact repeats.

    A string may list several metrics separated by commas (``"mrr@5,ndcg@10"``), as the
    command line's ``-m`` does. trec_eval's parameter lists expand: ``"P.1,3,5"`` is three
    metrics, ``"iprec_at_recall"`` the 11 recall levels trec_eval prints, and the named sets
    ``"official"`` (trec_eval's default output) and ``"all_trec"`` (``-m all_trec``) their
    metrics in trec_eval's order.

    Parameters
    ----------
    specs
        Metric strings or parsed metrics.
    trec
        Read bare trec_eval names as trec_eval's ``-m`` does: ``"P"`` is P_5, P_10, ...,
        P_1000 (trec_eval's default cut-offs). Otherwise ``"P"`` is precision over the
        whole list.

    Examples
    --------
    >>> [str(m) for m in parse_metrics("mrr@5, ndcg_cut_10")]
    ['mrr@5', 'ndcg@10']
    >>> [str(m) for m in parse_metrics("P.1,3,5")]
    ['precision@1', 'precision@3', 'precision@5']
    >>> [str(m) for m in parse_metrics("success", trec=True)]
    ['acc@1', 'acc@5', 'acc@10']
    """
    if isinstance(specs, str | Metric):
        specs = [specs]
    elif not isinstance(specs, Iterable):
        msg = (
            "The metrics must be a metric string such as 'ndcg@10' or a list of them, e.g. "
            f"['mrr@10', 'ndcg@10']; got {specs!r}."
        )
        raise UnknownMetricError(msg)
    pieces = [
        piece for spec in specs for piece in (_pieces(spec) if isinstance(spec, str) else [spec])
    ]
    parsed = [
        m for s in pieces for m in (_expand(s, trec) if isinstance(s, str) else [parse_metric(s)])
    ]
    if not parsed:
        msg = "No metric was requested; pass at least one, e.g. ['mrr@10', 'ndcg@10']."
        raise UnknownMetricError(msg)
    # a label that writes an option at its default (f1@5(beta=1)) is kept beside the bare
    # one: a call's keyword (beta=2) then applies to the bare one only
    return list({(m, m.given): m for m in parsed}.values())


def trec_label(metric: Metric) -> str | None:
    """The name trec_eval prints for ``metric`` (``P_10``, ``iprec_at_recall_0.10``,
    ``set_P``), or ``None`` when trec_eval has no such measure (``mrr@5``).

    Examples
    --------
    >>> [trec_label(m) for m in parse_metrics(["P_10", "precision", "ndcg", "mrr@5"])]
    ['P_10', 'set_P', 'ndcg', None]
    """
    for fixed, spelling in fixed_metrics():
        if fixed == metric:
            return spelling
    definition = metric.definition
    if metric.k is None:
        return definition.trec_name
    if definition.trec_cut is None:
        return None
    return f"{definition.trec_cut}_{definition.param.label(metric.k)}"


def _unknown_message(spec: str, text: str | None = None) -> str:
    bare = spec.strip().lower() if text is None else text
    base = _AT.sub(r"\g<name>", bare).split(".", 1)[0]
    hint = did_you_mean(closest(base, known_spellings()))
    known = ", ".join(METRICS)
    return f"Unknown metric {spec!r}.{hint} Known metrics: {known} (with '@k' for a cut-off)."
