"""Render the result tables of docs/bench/*.json into docs/PERFORMANCE.md and docs/EVALUATION.md.

Only the text between `<!-- tables:begin -->` and `<!-- tables:end -->` is replaced; the
prose around it is written by hand.

    python bench/report.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "bench"
BEGIN, END = "<!-- tables:begin -->", "<!-- tables:end -->"


def _load(pattern: str, results: Path = RESULTS) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(results.glob(pattern))]


def _f(value: object, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def ingest_table(rows: list[dict[str, Any]]) -> str:
    rows = sorted(rows, key=lambda r: (r["embedder"], r["backend"], r["chunks"]))
    out = [
        "| backend | embedder | docs | chunks | MB | ingest s | chunks/s | MB/s | jieba-only s | jieba MB/s "
        "| ingest / jieba (wall) | chunks per CPU-s | ingest / jieba (CPU) | load avg at end |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        out.append(
            f"| {r['backend']} | {r['embedder']} | {_f(r['docs'])} | {_f(r['chunks'])} | {_f(r['megabytes'], 2)} "
            f"| {_f(r['ingest_s'])} | {_f(r['ingest_chunks_per_s'])} | {_f(r['ingest_mb_per_s'], 3)} "
            f"| {_f(r['jieba_floor_s'])} | {_f(r['jieba_floor_mb_per_s'], 3)} | {_f(r['ingest_over_floor'], 2)}x "
            f"| {_f(r.get('ingest_chunks_per_cpu_s'))} | {_f(r.get('ingest_over_floor_cpu'), 2)}"
            f"{'x' if r.get('ingest_over_floor_cpu') else ''} | {r.get('machine', {}).get('loadavg', ['-'])[0]} |"
        )
    return "\n".join(out)


def ask_table(rows: list[dict[str, Any]]) -> str:
    rows = sorted(rows, key=lambda r: (r["backend"], r["chunks"]))
    out = [
        "| backend | chunks | n | ask p50 | ask p95 | HTTP p50 | HTTP p95 | retrieval p50 | retrieval p95 "
        "| assembly p50 | generation p50 | alignment p50 | persistence p50 | bm25s p50 | retrieval / bm25s | states "
        "| load avg (1 min) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|",
    ]
    for r in rows:
        st = r["stages_ms"]
        out.append(
            f"| {r['backend']} | {_f(r['chunks'])} | {r['queries']} | {_f(r['service_ms']['p50'])} "
            f"| {_f(r['service_ms']['p95'])} | {_f(r['http_ms']['p50'])} | {_f(r['http_ms']['p95'])} "
            f"| {_f(st['retrieval']['p50'])} | {_f(st['retrieval']['p95'])} | {_f(st['assembly']['p50'], 2)} "
            f"| {_f(st['generation']['p50'], 2)} | {_f(st.get('alignment', {}).get('p50'), 2)} "
            f"| {_f(st['persistence']['p50'])} | {_f(r['bm25s_ms']['p50'], 2)} | {_f(r['retrieval_over_bm25s'], 2)}x "
            f"| {', '.join(f'{k} {v}' for k, v in sorted(r['states'].items()))} "
            f"| {r.get('machine', {}).get('loadavg', ['-'])[0]} |"
        )
    return "\n".join(out)


def hybrid_table(rows: list[dict[str, Any]]) -> str:
    """bench/hybrid_bench.py: the hybrid default against lexical only, alternating in one run."""
    rows = sorted(rows, key=lambda r: (r["backend"], r["chunks"]))
    out = [
        "| backend | chunks | vectors (own / same article / any) | n | hybrid ask p50 | hybrid ask p95 "
        "| lexical ask p50 | lexical ask p95 | hybrid / lexical (p50) | hybrid, every vector search exact: p50 "
        "| embed question p50 | vector search p50 | vector search p95 | states (hybrid) | load avg (1 min) |",
        "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|",
    ]
    for r in rows:
        src = r.get("vector_sources")
        sources = f"{src['own']:,} / {src['same_article']:,} / {src['any']:,}" if isinstance(src, dict) else str(src)
        svc, dense = r["service_ms"], r["dense_stage_ms"]
        exact = "-"
        if "hybrid_exact" in svc:
            exact = f"{_f(svc['hybrid_exact']['p50'])} ({_f(r['hybrid_over_exact_p50'], 2)}x)"
        out.append(
            f"| {r['backend']} | {_f(r['chunks'])} | {sources} | {r['queries']} | {_f(svc['hybrid']['p50'])} "
            f"| {_f(svc['hybrid']['p95'])} | {_f(svc['lexical']['p50'])} | {_f(svc['lexical']['p95'])} "
            f"| {_f(r['hybrid_over_lexical_p50'], 2)}x | {exact} | {_f(dense['embed_question']['p50'])} "
            f"| {_f(dense['vector_search']['p50'])} | {_f(dense['vector_search']['p95'])} "
            f"| {', '.join(f'{k} {v}' for k, v in sorted(r['states']['hybrid'].items()))} "
            f"| {r.get('machine', {}).get('loadavg', ['-'])[0]} |"
        )
    return "\n".join(out)


def load_table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| backend | chunks | workers | endpoint | requests | req/s | p50 ms | p99 ms | socket errors | not 200/201 "
        "| 201s | in DB | lost | worker peak RSS MiB |",
        "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for r in sorted(rows, key=lambda r: (r["backend"], r["chunks"])):
        rss = ", ".join(_f(v) for v in (r.get("worker_peak_rss_mib") or {}).values())
        for endpoint in ("ask", "pages"):
            w = r.get(endpoint)
            if not w:
                continue
            created = w.get("created_201", "-")
            out.append(
                f"| {r['backend']} | {_f(r['chunks'])} | {r.get('workers', '-')} | {endpoint} "
                f"| {_f(w.get('requests'))} "
                f"| {_f(w.get('requests_per_s'))} | {_f(w.get('p50_ms'))} | {_f(w.get('p99_ms'))} "
                f"| {_f(w.get('errors'))} | {_f(w.get('unexpected_status'))} | {_f(created)} "
                f"| {_f(w.get('answers_in_db_after', '-'))} | {_f(w.get('lost_answers', '-'))} "
                f"| {rss if endpoint == 'pages' else ''} |"
            )
    return "\n".join(out)


def eval_rows(results: Path = RESULTS) -> list[dict[str, Any]]:
    """Every eval result: eval_bench.py's runs carry their label and command; a report written by
    `manage.py rag_eval --out docs/bench/eval_<label>.json` is labelled by its file name and has no command
    (its command is in the prose of docs/EVALUATION.md)."""
    return [
        {"label": p.stem.removeprefix("eval_"), **json.loads(p.read_text(encoding="utf-8"))}
        for p in sorted(results.glob("eval_*.json"))
    ]


def eval_table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| data set | answerable | answered | gold_cited | answer_in_evidence | answer_in_text | citation_precision "
        "| insufficient para | weak para | no-evidence | abstained | ask p50 ms | ask p95 ms |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        a, n, lat = r["answers"]["answerable"], r["answers"]["no_evidence"], r["answers"]["latency_ms"]
        out.append(
            f"| {r.get('label', '')} | {a['questions']} | {_f(a['answered'], 3)} | {_f(a['gold_cited'], 3)} "
            f"| {_f(a['answer_in_evidence'], 3)} | {_f(a['answer_in_text'], 3)} | {_f(a['citation_precision'], 3)} "
            f"| {_f(a['insufficient_paragraph_rate'], 3)} | {_f(a['weak_paragraph_rate'], 3)} | {n['questions']} "
            f"| {_f(n['abstained'], 3)} | {_f(lat['p50'])} | {_f(lat['p95'])} |"
        )
    return "\n".join(out)


def _machines(rows: list[dict[str, Any]]) -> str:
    seen = {json.dumps({k: v for k, v in r["machine"].items() if k in ("nproc", "cpu", "mem_gib")}) for r in rows}
    return "; ".join(sorted(seen))


def replace_tables(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no {BEGIN} ... {END} block")
    path.write_text(pattern.sub(lambda _m: f"{BEGIN}\n{body}\n{END}", text), encoding="utf-8")


def main() -> int:
    ingest, ask, load, evals = _load("ingest_*.json"), _load("ask_*.json"), _load("load_*.json"), eval_rows()
    hybrid = _load("hybrid_*.json")
    perf = []
    if ingest:
        perf += ["### Ingest throughput", "", ingest_table(ingest), ""]
    if ask:
        perf += ["### Ask latency (ms; extractive)", "", ask_table(ask), ""]
    if hybrid:
        perf += [
            "### Ask latency with the hybrid default (ms; extractive; vectors stored)",
            "",
            hybrid_table(hybrid),
            "",
        ]
    if load:
        perf += ["### HTTP load (gunicorn + wrk, 127.0.0.1)", "", load_table(load), ""]
    all_rows = ingest + ask + hybrid + load
    if all_rows:
        perf += [f"Machine(s) of these runs: {_machines(all_rows)}", ""]
        perf += ["Commands:", "", *[f"- `{r['command']}`" for r in all_rows if r.get("command")], ""]
    replace_tables(ROOT / "docs" / "PERFORMANCE.md", "\n".join(perf).strip())
    if evals:
        body = [eval_table(evals), "", "Commands:", "", *[f"- `{r['command']}`" for r in evals if r.get("command")], ""]
        replace_tables(ROOT / "docs" / "EVALUATION.md", "\n".join(body).strip())
    print("tables updated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
