"""Gate rules: the strings ``check()`` reads (``"ndcg@10 >= 0.30"``, ``"mrr drop <= 1%"``),
parsed into :class:`Rule` records, with an error naming the rule, what is wrong and the
grammar (:data:`GRAMMAR`). The gates (``rankframe.api.gates``) and the command line read
them through the gates' module, which re-exports these names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from rankframe._suggest import closest, closest_one, did_you_mean
from rankframe.exceptions import InvalidRuleError, RankEvalError, UnknownMetricError
from rankframe.metrics.registry import METRICS, Metric, parse_metric

__all__ = ["GRAMMAR", "Rule", "parse_rule", "parse_rules"]

GRAMMAR = (
    "A rule reads 'METRIC OP BOUND' with OP one of >=, <=, >, < (e.g. 'ndcg@10 >= 0.30', "
    "'mrr@10 <= 0.9'), or 'METRIC drop <= TOLERANCE' (also 'drop <'), the tolerance an "
    "absolute decrease ('ndcg@10 drop <= 0.01') or one relative to the baseline "
    "('ndcg@10 drop <= 1%'). METRIC is any metric name as evaluate() reads it "
    "('P_10', 'f1@5(beta=2)')."
)

_OPERATOR = re.compile(r"(<=|>=|<|>)")
_DROP = re.compile(r"^(?P<metric>.*?)\s+drop$", re.IGNORECASE)
_BAD_OPERATOR = re.compile(r"(==|!=|=<|=>)")


@dataclass(frozen=True)
class Rule:
    """One parsed rule.

    Attributes
    ----------
    text
        The rule as written (the ``rule`` column).
    metric
        The metric, as ``parse_metric`` reads it.
    operator
        ``">="``, ``"<="``, ``">"`` or ``"<"``.
    bound
        An absolute rule's bound; a drop rule's tolerance (a fraction when ``relative``:
        ``"1%"`` is 0.01).
    drop
        A drop rule (against a baseline, a reference or the previous window).
    relative
        A drop rule whose tolerance is a percentage of the baseline's statistic.
    """

    text: str
    metric: Metric
    operator: str
    bound: float
    drop: bool = False
    relative: bool = False


def _error(rule: str, problem: str, *, hint: str = "") -> InvalidRuleError:
    return InvalidRuleError(f"Rule {rule!r}: {problem}{hint} {GRAMMAR}", rule=rule)


def _metric(rule: str, text: str) -> Metric:
    """The metric of a rule, with a did-you-mean for a misspelt name."""
    if not text:
        raise _error(rule, "no metric before the operator.")
    try:
        return parse_metric(text)
    except UnknownMetricError:
        base = re.split(r"[@(]", text.strip().lower(), maxsplit=1)[0]
        names = [s for d in METRICS.values() for s in (d.name, *d.aliases)]
        hint = did_you_mean(closest(base, names))
        raise _error(rule, f"unknown metric {text!r}.", hint=hint) from None
    except RankEvalError as error:
        raise InvalidRuleError((f"Rule {rule!r}: ", *error.parts), rule=rule) from None


def _number(rule: str, text: str) -> tuple[float, bool]:
    """The bound after the operator, and whether it is a percentage."""
    relative = text.endswith("%")
    digits = text[:-1].strip() if relative else text
    try:
        value = float(digits)
    except ValueError:
        raise _error(rule, f"the bound {text!r} is not a number.") from None
    if math.isnan(value):
        raise _error(rule, "the bound is NaN; give a number.")
    return (value / 100 if relative else value), relative


#: Words a drop rule may be written with instead of ``drop`` (did-you-mean ``drop``)
_DROP_WORDS = (
    "decrease",
    "decreases",
    "decline",
    "declines",
    "regression",
    "regresses",
    "fall",
    "falls",
    "loss",
    "reduction",
)


def _misspelt_drop(rule: str, left: str, operator: str, right: str) -> None:
    """Raise when the word after the metric is not ``drop`` but looks meant as it
    (``"ndcg@10 drops <= 1%"``, ``"mrr decrease <= 0.01"``): did you mean ``drop``?"""
    words = left.rsplit(None, 1)
    if len(words) < 2:
        return
    head, word = words
    folded = word.lower()
    if folded not in _DROP_WORDS and not closest_one(folded, ["drop"], cutoff=0.6):
        return
    metric = _metric(rule, head)  # an unknown metric is the first thing to fix
    raise _error(
        rule,
        f"{word!r} is not a word of rules.",
        hint=f" Did you mean 'drop': '{metric} drop {operator} {right.strip()}'?",
    )


def parse_rule(text: object) -> Rule:
    """Parse one rule string (see the module's grammar, :data:`GRAMMAR`).

    Raises :class:`~rankframe.exceptions.InvalidRuleError` naming the rule, what is wrong
    and the grammar; an unknown metric name gets the names most like it.

    Examples
    --------
    >>> r = parse_rule("P_10 >= 0.3")
    >>> str(r.metric), r.operator, r.bound, r.drop
    ('precision@10', '>=', 0.3, False)
    >>> r = parse_rule("ndcg@10 drop <= 1%")
    >>> str(r.metric), r.bound, r.drop, r.relative
    ('ndcg@10', 0.01, True, True)
    """
    if not isinstance(text, str):
        msg = f"A rule is a string such as 'ndcg@10 >= 0.30'; got {text!r}. {GRAMMAR}"
        raise InvalidRuleError(msg, rule=None)
    rule = text.strip()
    found = _OPERATOR.search(rule)
    if found is None:
        bad = _BAD_OPERATOR.search(rule)
        problem = (
            f"{bad.group(1)!r} is not an operator of rules." if bad else "no comparison operator."
        )
        raise _error(text, problem)
    left, operator, right = rule[: found.start()].strip(), found.group(1), rule[found.end() :]
    right = right.strip()
    if _OPERATOR.search(right) or right.startswith("="):
        raise _error(text, "one comparison per rule; write several rules instead.")
    drop = _DROP.match(left)
    if drop is None and left.lower() == "drop":
        raise _error(text, "no metric before 'drop'.")
    if drop is None:
        _misspelt_drop(text, left, operator, right)
    metric = _metric(text, (drop["metric"] if drop else left).strip())
    bound, relative = _number(text, right)
    if drop is None:
        if relative:
            raise _error(
                text,
                "a percentage bound is relative to a baseline, so only drop rules take "
                f"one; write the bound as a number ({bound:g}) or the rule as "
                f"'{metric} drop <= {right}'.",
            )
        return Rule(text, metric, operator, bound)
    if operator not in ("<=", "<"):
        raise _error(
            text,
            f"a drop rule bounds the decrease from above: 'drop <=' or "
            f"'drop <', not 'drop {operator}'.",
        )
    if not math.isfinite(bound) or bound < 0:
        raise _error(text, f"the tolerance must be a finite number >= 0; got {right!r}.")
    return Rule(text, metric, operator, bound, drop=True, relative=relative)


def parse_rules(rules: str | Iterable[str]) -> list[Rule]:
    """One rule string or a list of them, parsed; repeats kept once."""
    if isinstance(rules, str):
        rules = [rules]
    elif not isinstance(rules, Iterable):
        msg = (
            f"rules must be a rule string or a list of them, e.g. ['ndcg@10 >= 0.30']; got "
            f"{rules!r}. {GRAMMAR}"
        )
        raise InvalidRuleError(msg, rule=None)
    texts = list(dict.fromkeys(rules))
    if not texts:
        msg = f"No rule was given; pass at least one, e.g. ['ndcg@10 >= 0.30']. {GRAMMAR}"
        raise InvalidRuleError(msg, rule=None)
    return [parse_rule(t) for t in texts]
