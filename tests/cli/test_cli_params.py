"""The command line checks the flags that pass an argument of a public method with that
method's constraints (``rankframe.settings.params``): for the same mistake it says what
the library says, naming the flag where the library names the parameter, and exits 2
before it reads the file (issue 46)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rankframe  # noqa: F401  (the accessor)
from rankframe.cli.commands import COMPARE_CHECKS
from rankframe.cli.gaps import GAPS_CHECKS
from rankframe.cli.gate import CHECK_CHECKS
from rankframe.cli.report import REPORT_CHECKS
from rankframe.cli.sample_size import SAMPLE_SIZE_CHECKS
from rankframe.cli.slices import SLICES_CHECKS
from rankframe.exceptions import InvalidOptionError

Run = Callable[..., tuple[int, str, str]]

N = 40  # queries


def frame() -> pd.DataFrame:
    """Two systems on 40 queries of two items, each query with a group and a theme."""
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "query": np.repeat([f"q{i:02d}" for i in range(N)], 2),
            "item": np.tile(["x", "y"], N),
            "a": rng.random(2 * N),
            "b": rng.random(2 * N),
            "relevant": np.tile([1, 0], N),
            "age": np.repeat(np.where(np.arange(N) % 2 == 0, "young", "old"), 2),
        }
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    written = tmp_path / "data.csv"
    frame().to_csv(written, index=False)
    return written


TWO = ("--score", "a", "--score", "b")
RULE = ("--rule", "mrr >= 0")

#: (command and its flags, the public call that makes the same mistake (method, its
#: arguments, the score columns bound), the flag → the parameter it passes)
CASES: list[tuple[tuple[str, ...], str, dict[str, Any], tuple[str, ...], tuple[str, str]]] = [
    (("compare", *TWO, "--baseline", "c"), "compare", {"baseline": "c"}, ("a", "b"), ("", "")),
    (
        ("compare", *TWO, "--alpha", "1.5"),
        "compare",
        {"alpha": 1.5},
        ("a", "b"),
        ("--alpha", "alpha"),
    ),
    (
        ("compare", *TWO, "--confidence-level", "1"),
        "compare",
        {"confidence_level": 1.0},
        ("a", "b"),
        ("--confidence-level", "confidence_level"),
    ),
    (
        ("compare", *TWO, "--permutations", "0"),
        "compare",
        {"n_permutations": 0},
        ("a", "b"),
        ("--permutations", "n_permutations"),
    ),
    (
        ("compare", *TWO, "--resamples", "0"),
        "compare",
        {"n_resamples": 0},
        ("a", "b"),
        ("--resamples", "n_resamples"),
    ),
    (
        ("compare", *TWO, "--seed", "-1"),
        "compare",
        {"seed": -1},
        ("a", "b"),
        ("--seed", "seed"),
    ),
    (("check", *TWO, *RULE, "--baseline", "c"), "check", {"baseline": "c"}, ("a", "b"), ("", "")),
    (
        ("check", *TWO, *RULE, "--min-queries", "0"),
        "check",
        {"min_queries": 0},
        ("a", "b"),
        ("", ""),
    ),
    (
        ("check", *TWO, *RULE, "--alpha", "0"),
        "check",
        {"alpha": 0.0},
        ("a", "b"),
        ("--alpha", "alpha"),
    ),
    (
        ("check", *TWO, *RULE, "--confidence-level", "2"),
        "check",
        {"confidence_level": 2.0},
        ("a", "b"),
        ("--confidence-level", "confidence_level"),
    ),
    (
        ("check", *TWO, *RULE, "--resamples", "0"),
        "check",
        {"n_resamples": 0},
        ("a", "b"),
        ("--resamples", "n_resamples"),
    ),
    (
        ("check", *TWO, *RULE, "--seed", "-1"),
        "check",
        {"seed": -1},
        ("a", "b"),
        ("--seed", "seed"),
    ),
    (("report", *TWO, "--baseline", "c"), "report", {"baseline": "c"}, ("a", "b"), ("", "")),
    (("report", *TWO, "--alpha", "1"), "report", {"alpha": 1.0}, ("a", "b"), ("--alpha", "alpha")),
    (
        ("report", *TWO, "--confidence-level", "0"),
        "report",
        {"confidence_level": 0.0},
        ("a", "b"),
        ("--confidence-level", "confidence_level"),
    ),
    (
        ("report", *TWO, "--resamples", "0"),
        "report",
        {"n_resamples": 0},
        ("a", "b"),
        ("--resamples", "n_resamples"),
    ),
    (
        ("report", *TWO, "--seed", "-1"),
        "report",
        {"seed": -1},
        ("a", "b"),
        ("--seed", "seed"),
    ),
    (
        ("report", *TWO, *RULE, "--min-queries", "0"),
        "report",
        {"rules": ["mrr >= 0"], "min_queries": 0},
        ("a", "b"),
        ("", ""),
    ),
    (
        ("slices", *TWO, "--column", "age", "--baseline", "c"),
        "slices",
        {"baseline": "c"},
        ("a", "b"),
        ("", ""),
    ),
    (
        ("slices", "--score", "a", "--column", "age", "--baseline", "a"),
        "slices",
        {"baseline": "a"},
        ("a",),
        ("", ""),
    ),
    (
        ("slices", *TWO, "--column", "age", "--max-depth", "0"),
        "slices",
        {"max_depth": 0},
        ("a", "b"),
        ("--max-depth", "max_depth"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--min-queries", "0"),
        "slices",
        {"min_queries": 0},
        ("a", "b"),
        ("--min-queries", "min_queries"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--bins", "1"),
        "slices",
        {"bins": 1},
        ("a", "b"),
        ("--bins", "bins"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--top", "0"),
        "slices",
        {"top": 0},
        ("a", "b"),
        ("--top", "top"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--confidence-level", "1"),
        "slices",
        {"confidence_level": 1.0},
        ("a", "b"),
        ("--confidence-level", "confidence_level"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--permutations", "0"),
        "slices",
        {"n_permutations": 0},
        ("a", "b"),
        ("--permutations", "n_permutations"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--resamples", "0"),
        "slices",
        {"n_resamples": 0},
        ("a", "b"),
        ("--resamples", "n_resamples"),
    ),
    (
        ("slices", *TWO, "--column", "age", "--seed", "-1"),
        "slices",
        {"seed": -1},
        ("a", "b"),
        ("--seed", "seed"),
    ),
    (
        ("gaps", *TWO, "--by", "age", "--baseline", "c"),
        "gaps",
        {"baseline": "c"},
        ("a", "b"),
        ("", ""),
    ),
    (
        ("gaps", "--score", "a", "--by", "age", "--baseline", "a"),
        "gaps",
        {"baseline": "a"},
        ("a",),
        ("", ""),
    ),
    (
        ("gaps", *TWO, "--by", "age", "--confidence-level", "0"),
        "gaps",
        {"confidence_level": 0.0},
        ("a", "b"),
        ("--confidence-level", "confidence_level"),
    ),
    (
        ("gaps", *TWO, "--by", "age", "--permutations", "0"),
        "gaps",
        {"n_permutations": 0},
        ("a", "b"),
        ("--permutations", "n_permutations"),
    ),
    (
        ("gaps", *TWO, "--by", "age", "--resamples", "0"),
        "gaps",
        {"n_resamples": 0},
        ("a", "b"),
        ("--resamples", "n_resamples"),
    ),
    (
        ("gaps", *TWO, "--by", "age", "--seed", "-1"),
        "gaps",
        {"seed": -1},
        ("a", "b"),
        ("--seed", "seed"),
    ),
    (("sample-size", *TWO, "--delta", "0"), "sample_size", {"delta": 0.0}, ("a", "b"), ("", "")),
    (
        ("sample-size", *TWO, "--delta", "nan"),
        "sample_size",
        {"delta": float("nan")},
        ("a", "b"),
        ("--delta", "delta"),
    ),
    (
        ("sample-size", *TWO, "--delta", "0.1", "--alpha", "1.5"),
        "sample_size",
        {"delta": 0.1, "alpha": 1.5},
        ("a", "b"),
        ("--alpha", "alpha"),
    ),
    (
        ("sample-size", *TWO, "--delta", "0.1", "--power", "0"),
        "sample_size",
        {"delta": 0.1, "power": 0.0},
        ("a", "b"),
        ("--power", "power"),
    ),
    (
        ("sample-size", *TWO, "--delta", "0.1", "--baseline", "c"),
        "sample_size",
        {"delta": 0.1, "baseline": "c"},
        ("a", "b"),
        ("", ""),
    ),
    (
        ("sample-size", "--score", "a", "--delta", "0.1", "--baseline", "a"),
        "sample_size",
        {"delta": 0.1, "baseline": "a"},
        ("a",),
        ("", ""),
    ),
]


def _library_says(method: str, keywords: dict[str, Any], scores: tuple[str, ...]) -> str:
    """The message of the public call that makes the mistake."""
    score: str | list[str] = scores[0] if len(scores) == 1 else list(scores)
    ev = frame().rank_eval(score=score)
    first = ["mrr >= 0"] if method == "check" else ["mrr"]
    args: list[Any] = [first, "age"] if method in ("gaps", "slices") else [first]
    with pytest.raises(InvalidOptionError) as raised:
        getattr(ev, method)(*args, **keywords)
    return str(raised.value)


@pytest.mark.parametrize(
    ("argv", "method", "keywords", "scores", "renamed"),
    CASES,
    ids=[" ".join(c[0]) for c in CASES],
)
def test_the_command_line_says_what_the_library_says(
    run: Run,
    tmp_path: Path,
    argv: tuple[str, ...],
    method: str,
    keywords: dict[str, Any],
    scores: tuple[str, ...],
    renamed: tuple[str, str],
) -> None:
    command, *flags = argv
    out_file = ("-o", tmp_path / "r.html") if command == "report" else ()
    metric = () if command == "check" else ("-m", "mrr")
    code, out, err = run(command, tmp_path / "missing.csv", *flags, *metric, *out_file)
    assert (code, out) == (2, ""), err
    assert err.startswith("rankframe: error: "), err
    assert err.count("\n") == 1, err
    said = err.removeprefix("rankframe: error: ").rstrip("\n")
    flag, parameter = renamed
    if flag:  # the library's parameter, named by its flag
        assert flag in said
        said = said.replace(flag, parameter)
    assert said == " ".join(_library_says(method, keywords, scores).split())


def test_every_checked_flag_has_a_case() -> None:
    """Each flag of each command's table of checks is tripped by a case above."""
    tables = {
        "compare": COMPARE_CHECKS,
        "check": CHECK_CHECKS,
        "report": {**REPORT_CHECKS, "--min-queries": None},
        "slices": SLICES_CHECKS,
        "gaps": GAPS_CHECKS,
        "sample-size": SAMPLE_SIZE_CHECKS,
    }
    tripped = {(argv[0], argv[-2]) for argv, *_ in CASES}
    tripped |= {("report", "--slice-min-queries"), ("report", "--exposure-k")}  # below
    missing = {(c, f) for c, table in tables.items() for f in table} - tripped
    assert not missing


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (
            "--slice-min-queries",
            "The '--slice-min-queries' parameter of report() must be an integer of at least 1. "
            "Got 0 instead.",
        ),
        (
            "--exposure-k",
            "The '--exposure-k' parameter of report() must be an integer of at least 1. "
            "Got 0 instead.",
        ),
    ],
)
def test_report_counts_of_its_sections(run: Run, tmp_path: Path, flag: str, message: str) -> None:
    """--slice-min-queries and --exposure-k pass no parameter of the same name: their own
    flag, checked as slices()' counts are, before the file is read."""
    code, out, err = run(
        "report", tmp_path / "missing.csv", *TWO, flag, "0", "-o", tmp_path / "r.html"
    )
    assert (code, out) == (2, "")
    assert err == f"rankframe: error: {message}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("compare", *TWO, "--alpha", "1.5"),
            "The '--alpha' option must be a number between 0 and 1, e.g. 0.95. Got 1.5.",
        ),
        (
            ("gaps", *TWO, "--by", "age", "--permutations", "0"),
            "The '--permutations' option must be a positive integer, e.g. 1000. Got 0 instead.",
        ),
        (
            ("slices", *TWO, "--column", "age", "--bins", "1"),
            "The '--bins' parameter of slices() must be an integer of at least 2. Got 1 instead.",
        ),
        (
            ("sample-size", *TWO, "--delta", "0.1", "--power", "0"),
            "--power=0.0 must lie strictly between 0 and 1, e.g. --power=0.05.",
        ),
        (
            ("check", *TWO, *RULE, "--baseline", "c"),
            "baseline='c' is not one of the score columns ['a', 'b']; pass one of them.",
        ),
    ],
)
def test_the_words_of_a_few(run: Run, path: Path, argv: tuple[str, ...], message: str) -> None:
    """A few messages in full, as the user reads them."""
    command, *flags = argv
    code, _, err = run(command, path, *flags)
    assert code == 2
    assert err == f"rankframe: error: {message}\n"
