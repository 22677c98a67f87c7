"""A Griffe extension for the API reference: the accessor's metric methods.

``RankEval.mrr``, ``RankEval.ndcg``, ... are generated at import from the metric registry
(``rankframe.api.accessor.metric_method``), so the static analysis that mkdocstrings runs on the
source cannot see them. This extension imports ``rankframe`` and adds each generated method,
inspected at run time (its ``__signature__`` and docstring), to the ``RankEval`` class of the
static tree, after ``__call__``. mkdocs.yml loads it (``extensions:``).
"""

from __future__ import annotations

from typing import Any

import griffe

CLASS = "rankframe.api.accessor.RankEval"


class MetricMethods(griffe.Extension):
    """Add the registry's metric methods to ``RankEval`` in the static tree."""

    def on_class_members(self, *, cls: griffe.Class, agent: Any, **kwargs: Any) -> None:
        if cls.path != CLASS or not isinstance(agent, griffe.Visitor):
            return
        from rankframe import METRICS  # noqa: PLC0415  (imported by the docs build only)

        inspected = griffe.inspect(
            cls.module.path,
            docstring_parser=agent.docstring_parser,
            docstring_options=agent.docstring_options,
        )
        runtime = inspected.members[cls.name]
        static = list(cls.members.items())
        cls.members.clear()
        for name, member in static:  # the metric methods go right after __call__
            cls.members[name] = member
            if name == "__call__":
                for metric in METRICS:
                    method = runtime.members[metric]
                    method.lineno = method.endlineno = member.endlineno
                    cls.set_member(metric, method)
