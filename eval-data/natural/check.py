"""Check the natural-question set and print its counts (run by hand after editing questions.json).

    DEBUG=1 .venv/bin/python eval-data/natural/check.py [eval-data/natural/questions.json]

Loads the set the way `rag_eval` does (rag_app.evaluation.load_natural: every source_id known,
every answerable question with key phrases), parses every document with the ingest service's own
parsers, and fails when:
- a key phrase is not verbatim in at least one of its gold documents (in the metric's matching
  form: NFKC, lower case, traditional -> simplified, whitespace removed, so a phrase may run
  across a line break of a licence text);
- `cross_lingual` disagrees with `lang` != `doc_lang`, or `doc_lang` is not the gold document's;
- a required field is missing.
Then prints the counts that README.md quotes.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("id", "question", "lang", "doc_lang", "corpus", "kind", "cross_lingual")


def main(path: Path) -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from rag_app.evaluation import load_natural
    from rag_app.evaluation_answers import match_form
    from rag_app.ingest.parsers import parse

    natural = load_natural(path)
    texts = {d.source_id: match_form(parse(d.path.read_bytes(), d.path.name).text) for d in natural.documents}
    langs: dict[str, str] = {}
    data = json.loads(path.read_text(encoding="utf-8"))
    for corpus in data["corpora"]:
        manifest = json.loads((path.parent / corpus["manifest"]).read_text(encoding="utf-8"))
        langs.update({f"{corpus['name']}/{d['id']}": d["lang"] for d in manifest["documents"]})
    problems = []
    for q in data["questions"]:
        missing = [f for f in FIELDS if f not in q]
        if missing:
            problems.append(f"{q.get('id')}: missing {missing}")
            continue
        if q["cross_lingual"] != (q["lang"] != q["doc_lang"]):
            problems.append(f"{q['id']}: cross_lingual disagrees with lang/doc_lang")
        golds = q.get("source_ids") or []
        if golds and langs[golds[0]] != q["doc_lang"]:
            problems.append(f"{q['id']}: doc_lang {q['doc_lang']} but {golds[0]} is {langs[golds[0]]}")
        for key in q.get("key_phrases") or []:
            if not any(match_form(key) in texts[g] for g in golds):
                problems.append(f"{q['id']}: key phrase {key!r} is in none of {golds}")
    for line in problems:
        print("PROBLEM", line)
    qs = data["questions"]
    size = sum(p.stat().st_size for p in {d.path for d in natural.documents})
    print(f"{len(natural.documents)} documents, {size:,} bytes")
    print(f"questions {len(qs)}: {dict(Counter(q['kind'] for q in qs))}")
    print(f"cross-lingual {sum(q['cross_lingual'] for q in qs)}")
    for key in ("corpus", "lang"):
        rows = Counter((q[key], q["kind"], q["cross_lingual"]) for q in qs)
        print(f"by {key} (value, kind, cross_lingual): count")
        for row, n in sorted(rows.items()):
            print(f"  {row}: {n}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("questions.json")))
