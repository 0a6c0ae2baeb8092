"""Build the typing-style variants of the English questions of the workplace and natural sets (README.md).

    python eval-data/chat-style/build.py      # rewrites the four files here

Each English question is retyped, and nothing else changes: the ids, gold sources, key phrases and corpora (read
where the original set reads them) are the original set's, so each variant is compared with the original question
by question. Two styles:

- chat (workplace.json, natural.json): lower case, no apostrophes, no closing question mark;
- capitals (workplace-capitals.json, natural-capitals.json): every letter in capitals, as with caps lock on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = {
    "workplace": HERE.parent / "workplace" / "questions.json",
    "natural": HERE.parent / "natural" / "questions.json",
}


def chat_typed(question: str) -> str:
    """ "What's the GPL's rule?" -> "whats the gpls rule"."""
    return re.sub(r"['’]", "", question.lower()).rstrip(" ?？")


def in_capitals(question: str) -> str:
    """ "What's the GPL's rule?" -> "WHAT'S THE GPL'S RULE?"."""
    return question.upper()


# style -> (how a question is retyped, the suffix of its files, how the description says it)
STYLES: dict[str, tuple[Callable[[str], str], str, str]] = {
    "chat": (chat_typed, "", "typed as chat is (lower case, no apostrophes, no closing question mark)"),
    "capitals": (in_capitals, "-capitals", "typed in capitals throughout"),
}


def build(name: str, source: Path, style: str = "chat") -> dict:
    retype, _, how = STYLES[style]
    data = json.loads(source.read_text(encoding="utf-8"))
    for corpus in data["corpora"]:
        corpus["manifest"] = str(Path("..") / source.parent.name / corpus["manifest"])
    data["description"] = f"The English questions of eval-data/{source.parent.name}, {how} (build.py)."
    data["questions"] = [{**q, "question": retype(q["question"])} for q in data["questions"] if q.get("lang") == "en"]
    return data


def path_of(name: str, style: str) -> Path:
    return HERE / f"{name}{STYLES[style][1]}.json"


if __name__ == "__main__":
    for style in STYLES:
        for name, source in SETS.items():
            out = build(name, source, style)
            path_of(name, style).write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            print(f"{path_of(name, style).name}: {len(out['questions'])} questions")
