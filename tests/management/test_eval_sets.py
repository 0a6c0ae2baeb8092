"""The committed evaluation sets stay valid: every gold source exists, every key phrase is verbatim in a gold
document as the ingest parsers read it, `cross_lingual` agrees with the languages (eval-data/natural/check.py, the
validator their READMEs name). A parser change that rewrites a document's text (session 39's Markdown and table
rendering) shows here, not as a silent drop in `key_in_answer`."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "dataset",
    [
        "eval-data/natural/questions.json",
        "eval-data/workplace/questions.json",
        "eval-data/engineering/questions.json",
        "eval-data/chat-style/natural.json",
        "eval-data/chat-style/workplace.json",
        "eval-data/chat-style/natural-capitals.json",
        "eval-data/chat-style/workplace-capitals.json",
    ],
)
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


def test_the_typing_style_variants_are_the_original_questions_retyped() -> None:
    """eval-data/chat-style is made by its build.py from the committed sets: an edit to either shows here until the
    variants are built again, and every question is its original retyped (lower case without apostrophes or a closing
    "?", or all in capitals), all else the same."""
    spec = importlib.util.spec_from_file_location("chat_style_build", ROOT / "eval-data" / "chat-style" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for style in build.STYLES:
        for name, source in build.SETS.items():
            committed = json.loads(build.path_of(name, style).read_text(encoding="utf-8"))
            assert committed == build.build(name, source, style), f"run python eval-data/chat-style/build.py ({name})"
            originals = {q["id"]: q for q in json.loads(source.read_text(encoding="utf-8"))["questions"]}
            for q in committed["questions"]:
                typed = q["question"]
                if style == "chat":
                    assert typed == typed.lower() and "'" not in typed and not typed.endswith("?")
                else:
                    assert typed == typed.upper()
                assert {**originals[q["id"]], "question": typed} == q
    assert build.chat_typed("What's the GPL's rule on fees?") == "whats the gpls rule on fees"
