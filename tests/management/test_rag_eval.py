"""rag_eval: the protocol's corpus, split and retrieval metrics, built in a database of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from rag_app import evaluation
from rag_app.models import Document

TOPICS = [
    (
        "Harbor Bridge",
        "The Harbor Bridge opened in 1932 and carries eight lanes of traffic.",
        "When did the Harbor Bridge open?",
        "1932",
    ),
    (
        "Tea ceremony",
        "The tea ceremony uses powdered matcha whisked with a bamboo whisk.",
        "What does the tea ceremony whisk with?",
        "a bamboo whisk",
    ),
    ("熊猫", "大熊猫主要以竹子为食，生活在四川的山区。", "大熊猫主要吃什么？", "竹子"),
    (
        "Glacier",
        "The Aletsch Glacier is the largest glacier in the Alps, about 23 kilometres long.",
        "How long is the Aletsch Glacier?",
        "23 kilometres",
    ),
    ("火山", "富士山是日本最高的火山，海拔三千七百七十六米。", "富士山海拔多少米？", "三千七百七十六米"),
    (
        "Violin",
        "Stradivari built violins in Cremona using spruce and maple wood.",
        "Which woods did Stradivari use for violins?",
        "spruce and maple",
    ),
]


def squad(tmp_path: Path) -> Path:
    data = {
        "version": "test",
        "data": [
            {
                "title": title,
                "id": f"ART_{i}",
                "paragraphs": [
                    {
                        "id": f"P_{i}",
                        "context": context,
                        "qas": [
                            {
                                "id": f"P_{i}_Q0",
                                "question": q,
                                "answers": [{"text": a, "answer_start": context.find(a)}],
                            }
                        ],
                    }
                ],
            }
            for i, (title, context, q, a) in enumerate(TOPICS)
        ],
    }
    path = tmp_path / "tiny_squad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_articles_become_markdown_documents_keyed_by_paragraph_id(tmp_path):
    articles = evaluation.load_articles(squad(tmp_path))
    assert [a.source_id for a in articles] == [f"P_{i}" for i in range(len(TOPICS))]
    assert articles[0].markdown() == f"# Harbor Bridge\n\n{TOPICS[0][1]}\n"
    assert articles[0].questions == (("P_0_Q0", "When did the Harbor Bridge open?", ("1932",)),)


def test_multi_paragraph_articles_use_the_article_id(tmp_path):
    path = tmp_path / "multi.json"
    path.write_text(
        json.dumps({"data": [{"title": "T", "paragraphs": [{"context": "a"}, {"context": "b"}]}]}), encoding="utf-8"
    )
    [article] = evaluation.load_articles(path)
    assert article.source_id == "A0"
    assert article.markdown() == "# T\n\na\n\nb\n"


def test_the_split_is_seeded_and_halves_the_articles(tmp_path):
    articles = evaluation.load_articles(squad(tmp_path))
    first, again = evaluation.split(articles, seed=0), evaluation.split(articles, seed=0)
    assert first == again
    assert len(first.ingested) == len(first.withheld) == 3
    assert {a.source_id for a in first.ingested} | {a.source_id for a in first.withheld} == {f"P_{i}" for i in range(6)}
    cases = first.cases()
    assert [c.gold_source_id for c in cases[:3]] == [a.source_id for a in first.ingested]
    assert all(c.gold_source_id is None for c in cases[3:])
    assert len(first.cases(limit=2)) == 2


def test_auroc_is_one_for_perfect_separation_and_half_for_ties():
    assert evaluation.auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert evaluation.auroc([0.1, 0.2], [0.9, 0.8]) == 0.0
    assert evaluation.auroc([0.5, 0.5], [0.5]) == 0.5
    assert evaluation.auroc([], [0.5]) is None


def test_rag_eval_builds_its_own_database_and_reports_retrieval(tmp_path, capfd, db):
    """The corpus goes to a cached file under --cache-dir; the test (user) database gets nothing."""
    dataset = squad(tmp_path)
    out = tmp_path / "report.json"
    call_command("rag_eval", dataset=str(dataset), cache_dir=str(tmp_path / "cache"), json=True, out=str(out))
    report = json.loads(out.read_text(encoding="utf-8"))["retrieval"]
    assert report["answerable"]["questions"] == 3
    assert report["no_evidence"]["questions"] == 3
    assert report["answerable"]["gold_top1"] == 1.0
    assert report["threshold_sweep"][0] == {"threshold": 0.0, "answered": 1.0, "abstained": 0.0}
    assert set(report["latency_ms"]) == {"p50", "p95"}
    assert json.loads(capfd.readouterr().out)["retrieval"] == report
    assert list((tmp_path / "cache").glob("corpus-*.sqlite3"))
    assert not Document.objects.exists()

    call_command("rag_eval", dataset=str(dataset), cache_dir=str(tmp_path / "cache"))
    captured = capfd.readouterr()
    assert "using the cached corpus" in captured.err
    assert "| gold source top-5 | 1.0 |" in captured.out


def test_rag_eval_rejects_a_missing_file(tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("rag_eval", dataset=str(tmp_path / "nope.json"))


def _other_squad(tmp_path: Path) -> Path:
    """A second SQuAD-layout file: two new articles, and a copy of the first file's articles (ids and text)."""
    first = json.loads(squad(tmp_path).read_text(encoding="utf-8"))
    extra = [
        {
            "title": "Lighthouse",
            "id": "X_0",
            "paragraphs": [{"id": "XP_0", "context": "The lighthouse at the cape was lit in 1871.", "qas": []}],
        },
        {
            "title": "梅花",
            "id": "X_1",
            "paragraphs": [{"id": "XP_1", "context": "梅花在冬末春初开放，花色多为粉红。", "qas": []}],
        },
    ]
    path = tmp_path / "other_squad.json"
    path.write_text(json.dumps({"version": "t", "data": extra + first["data"]}, ensure_ascii=False), "utf-8")
    return path


def test_distractors_are_ingested_beside_the_corpus_except_the_protocols_own_articles(tmp_path):
    """The same questions over a larger corpus: every article of the distractor file is added, except those
    the protocol holds itself (a withheld one would answer a question that must find nothing)."""
    dataset = squad(tmp_path)
    protocol = evaluation.load_dataset(dataset)
    distractors = evaluation.load_distractors([_other_squad(tmp_path)], protocol)
    assert [a.source_id for a in distractors] == ["XP_0", "XP_1"]
    settings = {"EMBEDDER": "none"}
    plain = evaluation.corpus_file(dataset, protocol, seed=0, rag_settings=settings, cache_dir=tmp_path)
    wider = evaluation.corpus_file(
        dataset,
        protocol,
        seed=0,
        rag_settings=settings,
        cache_dir=tmp_path,
        distractors=[tmp_path / "other_squad.json"],
    )
    assert plain != wider
    # A corpus without distractors keeps the key it had before distractors existed.
    legacy = json.dumps(
        [
            evaluation.CORPUS_FORMAT,
            evaluation.dataset_sha256(dataset),
            0,
            {"CHUNK_TARGET": None, "CHUNK_MAX": None, "EMBEDDER": "none", "EMBEDDING_MODEL": None},
        ],
        sort_keys=True,
    )
    import hashlib

    assert plain.name == f"corpus-{hashlib.sha256(legacy.encode()).hexdigest()[:16]}.sqlite3"


def test_rag_eval_with_distractors_asks_the_same_questions_of_the_larger_corpus(tmp_path, capfd, db):
    dataset = squad(tmp_path)
    other = _other_squad(tmp_path)
    out = tmp_path / "report.json"
    call_command(
        "rag_eval",
        dataset=str(dataset),
        distractors=[str(other)],
        cache_dir=str(tmp_path / "cache"),
        json=True,
        out=str(out),
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["documents"] == 3 + 2 and report["distractors"] == [str(other)]
    assert report["retrieval"]["answerable"]["questions"] == 3
    assert report["retrieval"]["no_evidence"]["questions"] == 3
    assert "and 2 distractors" in capfd.readouterr().err
    assert not Document.objects.exists()
