"""Build the chat-style variants of the English questions of the workplace and natural sets (README.md).

    python eval-data/chat-style/build.py      # rewrites workplace.json and natural.json here

Each English question is retyped the way chat is typed: lower case, no apostrophes, no closing question mark.
Nothing else changes: the ids, gold sources, key phrases and corpora (read where the original set reads them)
are the original set's, so each variant is compared with the original question by question.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = {
    "workplace": HERE.parent / "workplace" / "questions.json",
    "natural": HERE.parent / "natural" / "questions.json",
}


def chat_typed(question: str) -> str:
    """ "What's the GPL's rule?" -> "whats the gpls rule"."""
    return re.sub(r"['’]", "", question.lower()).rstrip(" ?？")


def build(name: str, source: Path) -> dict:
    data = json.loads(source.read_text(encoding="utf-8"))
    for corpus in data["corpora"]:
        corpus["manifest"] = str(Path("..") / source.parent.name / corpus["manifest"])
    data["description"] = f"The English questions of eval-data/{source.parent.name}, typed as chat is (build.py)."
    data["questions"] = [
        {**q, "question": chat_typed(q["question"])} for q in data["questions"] if q.get("lang") == "en"
    ]
    return data


if __name__ == "__main__":
    for name, source in SETS.items():
        out = build(name, source)
        (HERE / f"{name}.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{name}: {len(out['questions'])} questions")
