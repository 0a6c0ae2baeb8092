"""rag_eval --answers: the protocol run end to end through services.ask in its own database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from rag_app.models import Answer

# A tiny SQuAD-layout file: 4 one-paragraph articles, so the seed-0 split ingests 2 and withholds 2.
DATASET = {
    "version": "test",
    "data": [
        {
            "title": title,
            "paragraphs": [
                {
                    "id": pid,
                    "context": context,
                    "qas": [
                        {"id": f"{pid}_Q", "question": q, "answers": [{"text": a, "answer_start": context.find(a)}]}
                    ],
                }
            ],
        }
        for pid, title, context, q, a in [
            (
                "T_0",
                "战国无双3",
                "《战国无双3》是由光荣和ω-force开发的战国无双系列的正统第三续作。本作以三大故事为主轴。",
                "《战国无双3》是由哪两个公司合作开发的？",
                "光荣和ω-force",
            ),
            (
                "T_1",
                "瓦勒普斯岛",
                "瓦勒普斯岛位于弗吉尼亚州阿科马克县。该岛长期为私人团体所有，直到1940年代。",
                "瓦勒普斯岛位于哪个县？",
                "阿科马克县",
            ),
            (
                "T_2",
                "凤凰男",
                "凤凰男指出身农村、通过读书在城市立足的男性。这个词流行于2006年。",
                "凤凰男这个词流行于哪一年？",
                "2006年",
            ),
            (
                "T_3",
                "柠檬",
                "柠檬是一种芸香科柑橘属植物，果实富含维生素C。原产于东南亚。",
                "柠檬原产于哪里？",
                "东南亚",
            ),
        ]
    ],
}


@pytest.mark.slow  # two child processes build and ask in their own database
@pytest.mark.django_db
def test_answers_are_scored_per_protocol_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--answers adds the answer metrics for both groups and writes per-question JSONL next to --out."""
    dataset = tmp_path / "tiny.json"
    dataset.write_text(json.dumps(DATASET, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "report.json"
    argv = ["--dataset", str(dataset), "--answers", "--json", "--out", str(out), "--cache-dir", str(tmp_path / "c")]
    call_command("rag_eval", *argv)
    report = json.loads(out.read_text(encoding="utf-8"))
    answers = report["answers"]
    assert answers["answerable"]["questions"] == 2
    assert answers["no_evidence"]["questions"] == 2
    for key in ("answered", "gold_cited", "answer_in_evidence", "answer_in_text", "citation_precision"):
        assert key in answers["answerable"]
    assert 0.0 <= answers["no_evidence"]["abstained"] <= 1.0
    assert answers["latency_ms"]["n"] == 4
    assert answers["tradeoff"][0]["threshold"] == 0.0
    outcomes = (tmp_path / "report.answers" / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["qid"] for line in outcomes) == ["T_0_Q", "T_1_Q", "T_2_Q", "T_3_Q"]
    assert (tmp_path / "report.answers" / "failures.jsonl").exists()
    # The corpus and the answers live in the command's own database, never the test (user's) one.
    assert Answer.objects.count() == 0
