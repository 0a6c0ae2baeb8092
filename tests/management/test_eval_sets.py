"""The committed evaluation sets stay valid: every gold source exists, every key phrase is verbatim in a gold
document as the ingest parsers read it, `cross_lingual` agrees with the languages (eval-data/natural/check.py, the
validator their READMEs name). A parser change that rewrites a document's text (session 39's Markdown and table
rendering) shows here, not as a silent drop in `key_in_answer`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("dataset", ["eval-data/natural/questions.json", "eval-data/workplace/questions.json"])
def test_an_evaluation_set_validates(dataset: str) -> None:
    run = subprocess.run(
        [sys.executable, "eval-data/natural/check.py", dataset],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={"DEBUG": "1", "PATH": "/usr/bin:/bin", "RAG_EMBEDDER": "none", "SECRET_KEY": "test-only-secret-key"},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "PROBLEM" not in run.stdout
