"""The accessor's signatures: how a public method binds its arguments (an unknown keyword
gets the keyword meant: :class:`~rankframe.exceptions.UnknownArgumentError`), the
declared options that a table method's signature gains, the ``convention=`` preset, and
the generated metric methods (one per metric of the registry: signature and docstring
from its declaration).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from rankframe._suggest import closest, did_you_mean
from rankframe.exceptions import UnknownArgumentError
from rankframe.metrics.registry import METRICS, Metric, MetricDef, bind_options
from rankframe.settings.conventions import CONVENTION, preset_options
from rankframe.settings.options import OPTIONS, Options

__all__ = [
    "RENAMED",
    "add_metric_method",
    "arguments_checked",
    "bind",
    "bound",
    "check_report_keywords",
    "convention_applied",
    "metric_method",
    "option_keywords",
    "options_from",
    "scores_of",
]

# -- arguments: an unknown keyword gets a did-you-mean ---------------------------------------

#: Keywords renamed before 1.0 (one name per concept, scipy's where one fits): the old
#: spelling → the new one, for the did-you-mean of :class:`UnknownArgumentError`.
RENAMED = {
    "ci": "confidence_level",
    "confidence": "confidence_level",
    "n_bootstrap": "n_resamples",
}

_F = TypeVar("_F", bound=Callable[..., Any])


def argument_error(
    method: str,
    signature: inspect.Signature,
    n_positional: int,
    keywords: Iterable[str],
    error: TypeError,
) -> UnknownArgumentError:
    """The error for arguments ``signature`` cannot bind: an unknown keyword gets the
    keyword meant, or where it belongs; anything else, Python's reason and the signature."""
    params = [p for p in signature.parameters if p != "self"]
    shown = ", ".join(params)
    unknown = [k for k in keywords if k not in signature.parameters]
    if not unknown:
        positional = [
            p.name
            for p in signature.parameters.values()
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.name != "self"
        ]
        if n_positional <= len(positional):
            return UnknownArgumentError(f"{method}(): {error}. It takes: {shown}.")
        takes = f"only {positional[0]!r}" if len(positional) == 1 else "none"
        return UnknownArgumentError(
            f"{method}() got {n_positional} positional arguments; it takes {takes} by "
            f"position. Pass the others by keyword, e.g. {method}({params[-1]}=...). "
            f"It takes: {shown}."
        )
    keyword = unknown[0]
    if keyword == "k" and "metrics" in params:
        hint = " Put the cut-off in the metric name: 'ndcg@10'."
    elif RENAMED.get(keyword) in params:
        hint = f" Did you mean {RENAMED[keyword]!r}? (renamed: one name per concept)"
    elif keyword in OPTIONS:
        takers = [d.name for d in METRICS.values() if keyword in d.options]
        hint = f" {keyword!r} changes only {', '.join(takers)}; {method} does not take it."
    else:
        hint = did_you_mean(closest(keyword, params, cutoff=0.6)[:1])
    return UnknownArgumentError(
        f"{method}() got an unexpected keyword argument {keyword!r}.{hint} It takes: {shown}."
    )


def bind(
    method: str, signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> inspect.BoundArguments:
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as error:
        raise argument_error(method, signature, len(args) - 1, kwargs, error) from None


def scores_of(accessor: Any) -> tuple[str, ...]:
    """The accessor's bound score columns, for the constraints that read them
    (``baseline``: ``rankframe.settings.params.validate_params``)."""
    return tuple(accessor._names.scores)


def arguments_checked(function: _F) -> _F:
    """Check a method's arguments first: an unknown keyword raises
    :class:`UnknownArgumentError` (also a ``TypeError``) with the keyword meant."""
    signature = inspect.signature(function)
    name = "rank_eval" if function.__name__ == "__call__" else function.__name__

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        bind(name, signature, args, kwargs)
        return function(*args, **kwargs)

    return cast("_F", checked)


def convention_applied(function: _F) -> _F:
    """Give the options a ``convention=`` preset sets to a table method (``per_query``,
    ``evaluate``, ``compare``): each option not passed explicitly takes the preset's value."""
    accepted = [n for n in inspect.signature(function).parameters if n in OPTIONS]

    @functools.wraps(function)
    def applied(*args: Any, **kwargs: Any) -> Any:
        kwargs.update(preset_options(kwargs.get("convention"), kwargs, accepted))
        return function(*args, **kwargs)

    return cast("_F", applied)


def option_keywords(function: _F) -> _F:
    """A table method (``per_query``, ``evaluate``, ``compare``) takes every declared option
    and ``convention``: its signature gains them as keyword-only parameters in place of its
    ``**chosen``, from their declarations (``OPTIONS``, ``CONVENTION``)."""
    signature = inspect.signature(function)
    kept = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    declared = [o.parameter() for o in (*OPTIONS.values(), CONVENTION)]
    function.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*kept, *declared]
    )
    return function


def options_from(chosen: Mapping[str, Any]) -> Options:
    """The :class:`Options` of the options passed (or set by a preset); defaults otherwise."""
    return Options(**{name: chosen[name] for name in OPTIONS if name in chosen})


def bound(
    metrics: list[Metric], options: Options, chosen: Mapping[str, Any]
) -> tuple[list[Metric], Options]:
    """The call's options bound into its metrics (their labels name the options that moved
    them from the defaults), and the call's own (``rankframe.metrics.registry.bind_options``)."""
    explicit = [name for name in chosen if name in OPTIONS]
    return bind_options(metrics, options, explicit, chosen.get("convention"))


def check_report_keywords(build: Callable[..., Any], metrics: Any, chosen: dict[str, Any]) -> None:
    """An unknown keyword of ``report()`` raises ``UnknownArgumentError`` naming the keyword
    meant, as the other methods do: ``build``'s keywords and every metric option (and
    ``convention``) are known."""
    signature = inspect.signature(build)
    kept = [
        p
        for p in signature.parameters.values()
        if p.kind is not inspect.Parameter.VAR_KEYWORD and p.name not in ("ev", "binding")
    ]
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    declared = [o.parameter() for o in (*OPTIONS.values(), CONVENTION)]
    bind("report", signature.replace(parameters=[this, *kept, *declared]), (None, metrics), chosen)


# -- the metric methods: one per metric of the registry ---------------------------------------

_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
_K = inspect.Parameter("k", _POSITIONAL, default=None, annotation=int | None)
_BY = inspect.Parameter(
    "by", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=str | Sequence[str] | None
)
_EVERY = _BY.replace(name="every", annotation=str | None)
_K_DOC = "k\n    Cut-off: a positive integer, or ``None`` for the whole list."
_BY_DOC = "by\n    Column(s) constant within each query; gives one value per segment."
_EVERY_DOC = (
    'every\n    A window length (``"1w"``, a polars duration string) over the bound time '
    "column: one value per window (first in the index), as ``evaluate``."
)
_RETURNS = (
    "Returns\n-------\nfloat, or per segment a pandas Series / polars DataFrame; a LazyFrame "
    "for LazyFrames, lazy Dask objects for Dask. With several score columns, one value per "
    "system."
)


def _k_doc(definition: MetricDef) -> str:
    """The ``k`` entry of a metric method's parameters: a cut-off, or what its number is."""
    param = definition.param
    if param.integer:
        return _K_DOC
    need = "required" if param.required else "``None`` for the default"
    return f"k\n    The {param.what}: {param.allowed} ({need})."


def _metric_docstring(definition: MetricDef) -> str:
    """The NumPy-style docstring of a metric's method, from its declaration."""
    parameters = [_k_doc(definition)] if definition.takes_k else []
    parameters += [
        _BY_DOC,
        *(o.docstring() for o in definition.parameters()),
        _EVERY_DOC,
        CONVENTION.docstring(),
    ]
    sections = [
        inspect.cleandoc(definition.doc) or definition.summary,
        "Parameters\n----------\n" + "\n".join(parameters),
        _RETURNS,
    ]
    if definition.examples:
        sections.append("Examples\n--------\n" + inspect.cleandoc(definition.examples))
    return "\n\n".join(sections) + "\n"


def metric_method(definition: MetricDef) -> Callable[..., Any]:
    """``RankEval.<name>(k=None, *, by=None, **options)`` for one metric of the registry:
    its signature (``__signature__``) and docstring are built from the declaration."""
    name = definition.name
    declared = definition.parameters()
    positional = (
        []
        if not definition.takes_k
        else [_K if definition.param.integer else _K.replace(annotation=float | None)]
    )
    signature = inspect.Signature(
        [
            inspect.Parameter("self", _POSITIONAL),
            *positional,
            _BY,
            *(o.parameter() for o in declared),
            _EVERY,
            CONVENTION.parameter(),
        ],
        return_annotation=Any,
    )

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = bind(name, signature, (self, *args), kwargs)
        explicit = set(bound.arguments)
        bound.apply_defaults()
        values: dict[str, Any] = dict(bound.arguments)
        preset = preset_options(values["convention"], explicit, [o.name for o in declared])
        values.update(preset)
        options = Options(**{o.name: values[o.name] for o in declared})
        chosen = {n: values[n] for n in [*explicit, *preset] if n in values}
        return self._metric(name, values.get("k"), values["by"], options, chosen, values["every"])

    method.__name__ = name
    method.__qualname__ = f"RankEval.{name}"
    method.__doc__ = _metric_docstring(definition)
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


def add_metric_method(cls: type, definition: MetricDef) -> None:
    """Give ``cls`` (the accessor) the method of ``definition``'s metric."""
    existing = cls.__dict__.get(definition.name)
    if existing is not None and not getattr(existing, "_rankframe_metric", False):
        msg = (
            f"A metric cannot be named {definition.name!r}: the accessor already has a "
            f"method {definition.name!r}."
        )
        raise ValueError(msg)
    method = metric_method(definition)
    method._rankframe_metric = True  # type: ignore[attr-defined]
    method.__module__ = cls.__module__  # documented where the accessor is
    setattr(cls, definition.name, method)
