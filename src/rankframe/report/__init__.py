"""Reports: one self-contained HTML file of an evaluation, and paper tables.

``df.rank_eval(...).report(metrics, by=..., baseline=...)`` returns a ``Report``; it
shows itself in a notebook and saves with ``Report.save``. ``rankframe.to_latex`` and
``rankframe.to_markdown`` turn the table of ``compare()`` (or a report) into a paper table.
See ``docs/report.md``.

The package: ``_compute`` (every number, from one per-query pass), ``_html`` (the page),
``_svg`` (the charts), ``_tables`` (LaTeX and Markdown).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from rankframe.adapters.fingerprint import fingerprint_of
from rankframe.exceptions import InvalidRuleError, Keyword
from rankframe.metrics.registry import Metric
from rankframe.pipeline.analysis import Correction, Test
from rankframe.pipeline.binding import Binding
from rankframe.report import _html, _tables
from rankframe.report._answer import segment_answer, slice_answer
from rankframe.report._compute import compute, exposure, slice_table
from rankframe.report._judgments import judgments
from rankframe.report._records import Provenance, ReportData, eager, wtl_frame
from rankframe.settings.statistics import Tests

__all__ = ["Report", "build", "to_latex", "to_markdown"]


@dataclass(frozen=True)
class Report:
    """An evaluation as one self-contained HTML file: the data, the summary with intervals
    and significance marks, segments, trend and gates (when given), metric@k curves,
    per-query distributions, win/tie/loss against the baseline, the worst queries, and the
    options that produced it.

    Made by ``df.rank_eval(...).report(metrics, ...)``. In a notebook it shows itself
    (``_repr_html_``); ``save`` writes the file; ``html`` gives its text;
    ``to_latex`` and ``to_markdown`` give the comparison as a paper table.

    Examples
    --------
    Two queries, two systems. Query 1: ``a`` ranks the relevant ``y`` second (reciprocal
    rank 1/2), ``b`` first (1). Query 2: both rank the relevant ``x`` first (1, 1). So
    ``a``'s MRR is (1/2 + 1)/2 = 0.75, ``b``'s (1 + 1)/2 = 1; against the baseline ``a``,
    ``b`` wins query 1 and ties query 2:

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
    ...                    "a": [0.9, 0.1, 0.9, 0.1], "b": [0.1, 0.9, 0.9, 0.1],
    ...                    "relevant": [0, 1, 1, 0]})
    >>> report = df.rank_eval(score=["a", "b"]).report("mrr", n_resamples=50)
    >>> report.summary[["system", "mrr", "n_queries"]]
      system   mrr  n_queries
    0      a  0.75          2
    1      b  1.00          2
    >>> report.wtl[["system", "metric", "wins", "ties", "losses"]]
      system metric  wins  ties  losses
    0      b    mrr     1     1       0
    >>> report.save("report.html")  # doctest: +SKIP
    """

    data: ReportData
    title: str = "rankframe report"

    # -- the numbers ---------------------------------------------------------------------

    @property
    def summary(self) -> pd.DataFrame:
        """The means over queries with their intervals: ``evaluate(confidence_level=...)``'s
        table."""
        return self.data.summary

    @property
    def segments(self) -> pd.DataFrame | None:
        """The same per segment (``by=``), or ``None``."""
        return self.data.segments

    @property
    def comparison(self) -> pd.DataFrame | None:
        """``compare()``'s table against the baseline (``None`` with one system)."""
        return self.data.comparison

    @property
    def wtl(self) -> pd.DataFrame | None:
        """Win/tie/loss of each system against the baseline per metric: ``segment`` (-1 for
        every query, else the segment's position in ``segments``), ``system``, ``metric``,
        ``wins``, ``ties``, ``losses``."""
        if len(self.data.settings.systems) < 2:
            return None
        return wtl_frame(self.data.wtl)

    def with_tables(self, *, trend: Any = None, gates: Any = None, reference: Any = None) -> Report:
        """This report with a trend section (an ``evaluate`` table with a ``window``
        column), a gates section (a ``check`` table with a ``status`` column) or a
        reference section (a ``compare(reference=...)`` table); pandas or polars."""
        data = replace(
            self.data,
            trend=eager(trend) if trend is not None else self.data.trend,
            gates=eager(gates) if gates is not None else self.data.gates,
            reference=eager(reference) if reference is not None else self.data.reference,
        )
        return replace(self, data=data)

    @property
    def answer(self) -> str:
        """The answer, the page's first section, as plain text: a line per system against
        the baseline (and per metric the segments that go against its change, or the
        smallest change the data could detect when nothing moved), per slice where it
        fails, against the reference frame, and the gates' count; see docs/report.md."""
        return _html.answer_text(self.data, self.title)

    # -- output --------------------------------------------------------------------------

    def html(self) -> str:
        """The whole HTML file as text."""
        return _html.render(self.data, self.title)

    def _repr_html_(self) -> str:
        return _html.render(self.data, self.title, page=False)

    def save(self, path: str | Path) -> Path:
        """Write the HTML file (UTF-8) and return its path."""
        target = Path(path)
        target.write_text(self.html(), encoding="utf-8")
        return target

    def _table(self) -> pd.DataFrame:
        if self.data.comparison is not None:
            return self.data.comparison
        summary = self.data.summary  # one system: its means, nothing significant
        rows = [
            {
                "system": self.data.settings.systems[0],
                "metric": m,
                "k": None,
                "mean": float(summary[m].iloc[0]),
                "delta": 0.0,
                "p_value": None,
                "significant": False,
            }
            for m in self.data.settings.metrics
        ]
        return pd.DataFrame(rows)

    def to_latex(self, *, digits: int = 4, caption: str | None = None) -> str:
        """The comparison as a LaTeX table (``rankframe.to_latex``)."""
        return _tables.to_latex(self._table(), digits=digits, caption=caption)

    def to_markdown(self, *, digits: int = 4) -> str:
        """The comparison as a Markdown table (``rankframe.to_markdown``)."""
        return _tables.to_markdown(self._table(), digits=digits)

    def __repr__(self) -> str:
        s = self.data.settings
        return (
            f"<rankframe.Report metrics={s.metrics} systems={s.systems} by={s.by} "
            f"queries={self.data.facts.queries}>"
        )


def build(
    ev: Any,
    binding: Binding,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    by: str | Sequence[str] | None = None,
    baseline: str | None = None,
    every: str | None = None,
    reference: Any = None,
    rules: Any = None,
    min_queries: int = 20,
    mode: Literal["interval", "point"] = "interval",
    test: Test = "t-test",
    correction: Correction = "holm",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: int | None = 0,
    worst: int = 10,
    top_k: int = 10,
    curves: bool = True,
    title: str = "rankframe report",
    name: str | None = None,
    fingerprint: bool = False,
    slices: str | Sequence[str] | None = None,
    slice_depth: int = 2,
    slice_min_queries: int = 30,
    slice_top: int = 5,
    exposure_k: int = 10,
    **chosen: Any,
) -> Report:
    """The report of the accessor ``ev`` over ``binding`` (its frame and column names), once
    ``RankEval.report`` has checked the keywords and rules; see ``Report``. ``ev`` gives
    the reference and gates sections (its ``compare`` and ``check``)."""
    # the comparison's settings: compare()'s, with its family and permutations
    tests = Tests(
        test=test,
        correction=correction,
        family="systems",
        alpha=alpha,
        confidence_level=confidence_level,
        n_permutations=10_000,
        n_resamples=n_resamples,
        seed=seed,
    )
    worst, top_k = max(int(worst), 0), max(int(top_k), 1)
    data = compute(
        binding,
        metrics,
        by=by,
        baseline=baseline,
        tests=tests,
        worst=worst,
        top_k=top_k,
        curves=curves,
        chosen=chosen,
        every=every,
    )
    data.about = _provenance(binding, data, name, fingerprint=fingerprint)
    # the reference and the gates: compare(reference=...)'s and check()'s own tables,
    # with the report's settings (the trend is computed in the one pass, by compute)
    sections = _Sections(ev, metrics, by, tests, chosen)
    if every is not None and len(data.settings.systems) == 1 and reference is None:
        # the answer of a trend of one system: the last window against the previous one
        data.previous = sections.previous(every)
    against = sections.reference(data, reference) if reference is not None else None
    gates = (
        sections.gates(rules, data, baseline, reference, every, mode, min_queries)
        if rules is not None
        else None
    )
    if slices is not None:  # "Where it fails": slices()'s table, against the baseline
        sections.slices(data, slices, slice_depth, slice_min_queries, slice_top)
    if chosen.get("item_groups") is not None:  # exposure of the item groups
        data.exposure = exposure(ev, exposure_k, data.settings.systems, tests, chosen)
    names = binding.names
    if names.gold is not None:  # a judge checked against people: agreement(), estimate=
        columns = (str(names.relevant), str(names.gold))
        holes = data.facts.holes
        data.judgments = judgments(ev, columns, metrics, data.settings.by, holes, tests, chosen)
    report = Report(data, title)
    if gates is not None or against is not None:
        report = report.with_tables(gates=gates, reference=against)
    return report


def _provenance(
    binding: Binding, data: ReportData, name: str | None, *, fingerprint: bool
) -> Provenance:
    """What the About section says of the run: when, its name, the input's rows and
    queries, and (``fingerprint``) the store's fingerprint of the input
    (``History.record(data=...)``'s): it hashes every bound row, about as long again as
    the report on string ids."""
    adapter = binding.frame  # the one contract, pipeline.contract.FrameAdapter
    rows, queries, digest = (
        fingerprint_of(adapter, binding.names)
        if fingerprint
        else (data.facts.rows, data.facts.queries, None)
    )
    return Provenance(
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        name=None if name is None else str(name),
        rows=rows,
        queries=queries,
        digest=digest,
    )


@dataclass(frozen=True)
class _Sections:
    """The sections a report asks of the accessor ``ev`` (its ``compare``, ``check`` and
    ``slices``), with the report's metrics, ``by=``, statistics and options."""

    ev: Any
    metrics: Any
    by: str | Sequence[str] | None
    tests: Tests
    chosen: dict[str, Any]

    def previous(self, every: str) -> pd.DataFrame:
        """``compare(every=...)``'s table: each window against the previous one."""
        tests, chosen = asdict(self.tests), self.chosen
        return eager(self.ev.compare(self.metrics, every=every, **tests, **chosen))

    def reference(self, data: ReportData, reference: Any) -> Any:
        """``compare(reference=...)``'s table (the Reference section); and into ``data``
        the answer against the reference: every query's change, and with ``by=`` the
        segments against it (a second comparison, over every query, only with ``by=``)."""
        tests, chosen = asdict(self.tests), self.chosen
        against = self.ev.compare(self.metrics, reference=reference, by=self.by, **tests, **chosen)
        overall = eager(
            against
            if not data.settings.by
            else self.ev.compare(self.metrics, reference=reference, **tests, **chosen)
        )
        data.reference_overall = overall
        if data.settings.by:
            data.reference_against, data.reference_segment_tests = segment_answer(
                overall, eager(against), data.settings.by, None, self.tests, reference=True
            )
        return against

    def gates(
        self,
        rules: Any,
        data: ReportData,
        baseline: str | None,
        reference: Any,
        every: str | None,
        mode: Literal["interval", "point"],
        min_queries: int,
    ) -> Any:
        """``check()``'s table of ``rules`` against the reference frame, else the
        baseline, with check()'s own family ("table": one failing row fails the gate)."""
        extra = {"reference": reference} if reference is not None else {"baseline": baseline}
        tests = self.tests
        try:
            return self.ev.check(
                rules,
                by=self.by,
                mode=mode,
                min_queries=min_queries,
                confidence_level=tests.confidence_level,
                alpha=tests.alpha,
                test=tests.test,
                correction=tests.correction,
                n_resamples=tests.n_resamples,
                seed=tests.seed,
                **extra,
                **self.chosen,
            )
        except InvalidRuleError as error:  # the rules parsed: a drop rule without a baseline
            if (
                every is None
                or error.rule is None
                or reference is not None
                or len(data.settings.systems) > 1
            ):
                raise
            raise _windowed_drop_error(error.rule, every) from None

    def slices(
        self, data: ReportData, slices: str | Sequence[str], depth: int, min_queries: int, top: int
    ) -> None:
        """Into ``data``: "Where it fails", ``slices()``'s table against the baseline (with
        several systems), and the answer's slices."""
        several = len(data.settings.systems) > 1
        data.slices = slice_table(
            self.ev,
            self.metrics,
            [slices] if isinstance(slices, str) else list(slices),
            baseline=data.settings.baseline if several else None,
            tests=self.tests,
            max_depth=depth,
            min_queries=min_queries,
            top=top,
            chosen=self.chosen,
        )
        data.slice_against = slice_answer(data.slices, data.comparison)


def _windowed_drop_error(rule: str, every: str) -> InvalidRuleError:
    """A drop rule in a report of one system over windows: the report's gates run over all
    queries (``every=`` draws its trend), so there is nothing to compare with. The keyword
    is a part of the message (``Keyword``): the command line says it as its flag."""
    return InvalidRuleError(
        (
            f"Rule {rule!r} is a drop rule: it compares each system with a baseline, and the "
            "report's gates run over all queries, with one system and no reference frame (",
            Keyword("every", every),
            " draws the report's trend; its gates are not per window). "
            "To check each window against the previous one, call check yourself: "
            f"df.rank_eval.check([{rule!r}], every={every!r}) (on the command line: rankframe "
            f"check --rule {rule!r} --time COLUMN --every {every}); or give the report a baseline "
            "(several score columns and baseline='...') or reference=last_week.",
        ),
        rule=rule,
    )


def to_latex(table: Any, *, digits: int = 4, caption: str | None = None) -> str:
    """A comparison as a LaTeX table: see ``rankframe.report._tables.to_latex``."""
    if isinstance(table, Report):
        return table.to_latex(digits=digits, caption=caption)
    return _tables.to_latex(table, digits=digits, caption=caption)


def to_markdown(table: Any, *, digits: int = 4) -> str:
    """A comparison as a Markdown table: see ``rankframe.report._tables.to_markdown``."""
    if isinstance(table, Report):
        return table.to_markdown(digits=digits)
    return _tables.to_markdown(table, digits=digits)


to_latex.__doc__ = _tables.to_latex.__doc__
to_markdown.__doc__ = _tables.to_markdown.__doc__
