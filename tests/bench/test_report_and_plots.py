"""The report renderer and the plots work from result JSON alone (tiny made-up inputs)."""

from __future__ import annotations

import json
from pathlib import Path

import plots
import report

STAGE = {"n": 2, "p50": 1.0, "p95": 2.0, "p99": 2.0, "mean": 1.5}
ASK = {
    "backend": "sqlite",
    "chunks": 1000,
    "queries": 2,
    "service_ms": STAGE,
    "http_ms": STAGE,
    "stages_ms": dict.fromkeys(("retrieval", "assembly", "generation", "alignment", "persistence"), STAGE),
    "bm25s_ms": STAGE,
    "retrieval_over_bm25s": 1.0,
    "states": {"answered": 2},
    "machine": {"nproc": 2, "cpu": "x", "mem_gib": 1.0},
    "command": "python bench/ask_bench.py --chunks 1000",
}
EVAL = {
    "label": "tiny",
    "threshold": 0.5,
    "command": "python manage.py rag_eval --dataset tiny.json --mode extractive",
    "answers": {
        "answerable": {
            "questions": 2,
            "answered": 1.0,
            "gold_cited": 1.0,
            "answer_in_evidence": 1.0,
            "answer_in_text": 0.5,
            "citation_precision": 1.0,
            "insufficient_paragraph_rate": 0.0,
            "weak_paragraph_rate": 0.0,
        },
        "no_evidence": {"questions": 2, "abstained": 0.5},
        "latency_ms": {"p50": 10.0, "p95": 20.0},
        "tradeoff": [
            {"threshold": t, "answered": 1 - t, "answered_with_gold": 1 - t, "abstained": t} for t in (0.0, 0.5, 1.0)
        ],
    },
}


def test_tables_replace_only_the_marked_block(tmp_path: Path) -> None:
    """Hand-written prose around the markers survives; the table carries the figures."""
    doc = tmp_path / "X.md"
    doc.write_text(f"intro\n{report.BEGIN}\nSTALE TABLE\n{report.END}\noutro\n", encoding="utf-8")
    report.replace_tables(doc, report.ask_table([ASK]) + "\n\n" + report.eval_table([EVAL]))
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("intro\n") and text.endswith("outro\n")
    assert "STALE TABLE" not in text
    assert "| sqlite | 1,000 | 2 |" in text
    assert "| tiny | 2 | 1.000 |" in text


def test_plots_are_written_from_results(tmp_path: Path) -> None:
    """Both plots of record come out as PNG files."""
    (tmp_path / "ask_sqlite_1k.json").write_text(json.dumps(ASK), encoding="utf-8")
    (tmp_path / "eval_tiny.json").write_text(json.dumps(EVAL), encoding="utf-8")
    made = [plots.latency_plot(tmp_path, tmp_path / "img"), plots.tradeoff_plot(tmp_path, tmp_path / "img")]
    for path in made:
        assert path is not None and path.read_bytes().startswith(b"\x89PNG")


def test_plots_skip_without_results(tmp_path: Path) -> None:
    """No results yet: nothing is drawn, nothing fails."""
    assert plots.latency_plot(tmp_path, tmp_path) is None
    assert plots.tradeoff_plot(tmp_path, tmp_path) is None


def test_a_rag_eval_report_is_labelled_by_its_file_name(tmp_path: Path) -> None:
    """`manage.py rag_eval --out docs/bench/eval_<label>.json` writes no label or command; the table still
    renders it (it used to stop the renderer with a KeyError)."""
    (tmp_path / "eval_tiny.json").write_text(json.dumps(EVAL), encoding="utf-8")
    from_rag_eval = {k: v for k, v in EVAL.items() if k not in ("label", "command")}
    (tmp_path / "eval_natural_extractive.json").write_text(json.dumps(from_rag_eval), encoding="utf-8")
    rows = report.eval_rows(tmp_path)
    assert [r["label"] for r in rows] == ["natural_extractive", "tiny"]
    assert "| natural_extractive | 2 | 1.000 |" in report.eval_table(rows)


def test_the_hybrid_table_shows_both_modes_and_where_the_vectors_came_from() -> None:
    row = {
        "backend": "postgres",
        "chunks": 100003,
        "vector_sources": {"own": 10005, "same_article": 88000, "any": 1998},
        "queries": 2,
        "service_ms": {"hybrid": {**STAGE, "p50": 3.0}, "lexical": STAGE},
        "hybrid_over_lexical_p50": 3.0,
        "dense_stage_ms": {"embed_question": STAGE, "vector_search": STAGE},
        "states": {"hybrid": {"answered": 2}, "lexical": {"answered": 1, "no_evidence": 1}},
        "machine": {"loadavg": [1.5, 1.0, 1.0]},
    }
    table = report.hybrid_table([row])
    assert "| postgres | 100,003 | 10,005 / 88,000 / 1,998 | 2 | 3.0 | 2.0 | 1.0 | 2.0 | 3.00x |" in table
    assert table.rstrip().endswith("| answered 2 | 1.5 |")
