"""Write a SQuAD-layout Chinese set in another script: the held-out check of "other scripts".

CMRC 2018 is written in simplified characters; staff in Taiwan and Hong Kong write traditional ones, and a
document may be in either. This converts a set with zhconv (already a dependency: the search folds traditional
characters to simplified with it) so that `manage.py rag_eval` can ask the same questions

- with everything in the other script (`--what all`: documents, titles, questions and reference answers), and
- with only the questions converted (`--what questions`): a traditional question about simplified documents.

Offsets (`answer_start`) are left as they are; conversion keeps the length of most characters, and the metrics
match answer texts, not offsets (docs/EVALUATION.md, "Metrics").

    python bench/script_variant.py ../shared/eval-data/cmrc2018/cmrc2018_trial.json var/eval/trial_zh-tw.json
    python manage.py rag_eval --dataset var/eval/trial_zh-tw.json --answers --json --out var/eval/trial_zh-tw_out.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import zhconv


def convert(data: dict[str, Any], *, locale: str, what: str) -> dict[str, Any]:
    """`data` (SQuAD layout) with its text in `locale`'s script ("zh-tw", "zh-hk", "zh-hant"...)."""

    def c(text: str) -> str:
        return zhconv.convert(text, locale)

    for article in data["data"]:
        if what == "all":
            article["title"] = c(article.get("title", ""))
        for paragraph in article["paragraphs"]:
            if what == "all":
                paragraph["context"] = c(paragraph["context"])
            for qa in paragraph["qas"]:
                qa["question"] = c(qa["question"])
                if what == "all":
                    for answer in qa.get("answers", []):
                        answer["text"] = c(answer["text"])
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--locale", default="zh-tw", help="zhconv's target: zh-tw, zh-hk, zh-hant (default zh-tw)")
    parser.add_argument("--what", choices=("all", "questions"), default="all")
    args = parser.parse_args()
    data = convert(json.loads(args.source.read_text(encoding="utf-8")), locale=args.locale, what=args.what)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
