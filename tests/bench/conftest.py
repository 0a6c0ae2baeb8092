"""The bench scripts are plain scripts, not a package: make their folder importable.

Tests feed them the vendored CMRC 2018 sample (tests/fixtures/README.md), so they need no ../shared.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
BENCH = TESTS.parent / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402


@pytest.fixture(scope="session")
def cmrc_sample() -> Path:
    """The first 30 articles of CMRC 2018 dev, verbatim, in the SQuAD layout (CC BY-SA 4.0)."""
    return TESTS / "fixtures" / "cmrc2018_sample.json"


@pytest.fixture(scope="session")
def articles(cmrc_sample: Path) -> list[corpus.Article]:
    """The sample's articles split into sentences, for corpus.generate(articles=...)."""
    return corpus.load_articles([cmrc_sample])
