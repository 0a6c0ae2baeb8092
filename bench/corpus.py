"""Deterministic benchmark corpora made from the real evaluation text.

Every generated document recombines sentences of the CMRC 2018 articles (dev + trial):
a document takes its title and most of its sentences from one "base" article and mixes in
sentences of other articles, so the vocabulary, sentence lengths and term statistics are
those of real Chinese Wikipedia prose, while 100k chunks need not exist in the source.
Same seed, same sizes -> byte-identical documents, in the same order.

    python bench/corpus.py --chunks 1000 --seed 0 --out var/bench/corpus-1k   # writes .md files
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rag_app.ingest.parsers import parse  # noqa: E402  (parsers and pipeline import no Django)
from rag_app.pipeline.chunking import chunk_text  # noqa: E402
from rag_app.pipeline.textproc import split_sentences  # noqa: E402

EVAL_DIR = ROOT.parent / "shared" / "eval-data" / "cmrc2018"
DEFAULT_SOURCES = (EVAL_DIR / "cmrc2018_dev.json", EVAL_DIR / "cmrc2018_trial.json")
CHUNK_TARGET = 350
CHUNK_MAX = 600


@dataclass(frozen=True, slots=True)
class Article:
    title: str
    sentences: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GeneratedDoc:
    source_id: str
    title: str
    text: str  # Markdown: "# title", then "## section" headings and paragraphs
    chunks: int  # chunk count of the project's Markdown parser + chunker (what ingest will write)

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")


def load_articles(paths: Sequence[Path] = DEFAULT_SOURCES) -> list[Article]:
    """Articles of SQuAD-layout files, each split into sentences, in file order."""
    out: list[Article] = []
    for path in paths:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
        for art in payload["data"]:
            sentences = [s for p in art["paragraphs"] for s in split_sentences(p["context"]) if len(s) >= 4]
            if sentences:
                out.append(Article(title=str(art.get("title") or ""), sentences=tuple(sentences)))
    if not out:
        raise ValueError("no sentences found in the source files")
    return out


def generate(
    *,
    chunks: int,
    seed: int = 0,
    articles: Sequence[Article] | None = None,
    chunks_per_doc: tuple[int, int] = (4, 16),
    foreign_share: float = 0.3,
    prefix: str = "BENCH",
) -> Iterator[GeneratedDoc]:
    """Yield documents until their estimated chunk count reaches `chunks`."""
    if chunks <= 0:
        raise ValueError("chunks must be positive")
    arts = list(articles) if articles is not None else load_articles()
    rng = random.Random(seed)
    total = 0
    n = 0
    while total < chunks:
        base = arts[rng.randrange(len(arts))]
        want = min(rng.randint(*chunks_per_doc), chunks - total)
        text = _document_text(rng, arts, base, n, want * CHUNK_TARGET, foreign_share)
        est = count_chunks(text)
        yield GeneratedDoc(source_id=f"{prefix}_{seed}_{n:06d}", title=_title(base, n), text=text, chunks=est)
        total += est
        n += 1


def count_chunks(markdown: str) -> int:
    """Chunks ingest will make of this Markdown text at the default chunk sizes."""
    parsed = parse(markdown.encode("utf-8"), "doc.md")
    return len(chunk_text(parsed.text, parsed.blocks, target=CHUNK_TARGET, max_chars=CHUNK_MAX))


def _title(base: Article, n: int) -> str:
    return f"{base.title or '文档'}（合集 {n}）"


def _document_text(
    rng: random.Random, arts: Sequence[Article], base: Article, n: int, chars: int, foreign_share: float
) -> str:
    lines = [f"# {_title(base, n)}", ""]
    size = 0
    section = 0
    while size < chars:
        section += 1
        lines += [f"## 第{section}节", ""]
        for _ in range(rng.randint(1, 3)):
            para: list[str] = []
            for _ in range(rng.randint(2, 5)):
                src = arts[rng.randrange(len(arts))] if rng.random() < foreign_share else base
                para.append(src.sentences[rng.randrange(len(src.sentences))])
            paragraph = "".join(para)
            lines += [paragraph, ""]
            size += len(paragraph)
            if size >= chars:
                break
    return "\n".join(lines).strip() + "\n"


def write_folder(docs: Iterator[GeneratedDoc], out: Path) -> tuple[int, int, int]:
    """Write one Markdown file per document plus manifest.jsonl; returns (docs, chunks, bytes)."""
    out.mkdir(parents=True, exist_ok=True)
    count = chunks = size = 0
    with (out / "manifest.jsonl").open("w", encoding="utf-8") as manifest:
        for doc in docs:
            data = doc.data
            (out / f"{doc.source_id}.md").write_bytes(data)
            manifest.write(json.dumps({"source_id": doc.source_id, "title": doc.title, "chunks": doc.chunks}) + "\n")
            count, chunks, size = count + 1, chunks + doc.chunks, size + len(data)
    return count, chunks, size


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    count, chunks, size = write_folder(generate(chunks=args.chunks, seed=args.seed), args.out)
    print(json.dumps({"docs": count, "chunks_estimated": chunks, "bytes": size, "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
