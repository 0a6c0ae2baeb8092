"""Rebuild the zh-cmrc corpus: long Chinese documents grouped from CMRC 2018 dev articles.

    .venv/bin/python eval-data/natural/corpora/zh-cmrc/build.py [path/to/cmrc2018_dev.json]

Each document below is a themed handbook: an H1 title, then one section per CMRC article (its
Wikipedia title as the heading, its paragraph verbatim as the body), in the order listed. The
article texts are not edited. Most documents are Markdown; one is HTML and one plain text so that
every text parser of the ingest service is used. Writes the files and manifest.json next to this
script. Run by hand (not at evaluation time); the output is committed.
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE.parents[3] / ".." / "shared" / "eval-data" / "cmrc2018" / "cmrc2018_dev.json"
NOTE = "Chinese Wikipedia via CMRC 2018 dev (Cui et al., 2019), CC BY-SA 4.0"

# (document id, file, title, CMRC dev paragraph numbers in order: 505 = paragraph DEV_505)
DOCUMENTS: list[tuple[str, str, str, list[int]]] = [
    (
        "beijing-subway",
        "beijing-subway.md",
        "北京地铁10号线沿线车站资料",
        [505, 506, 507, 508, 509, 510, 511, 512, 513],
    ),
    (
        "hk-bus-routes",
        "hk-bus-routes.html",
        "香港巴士路线资料汇编",
        [158, 238, 346, 395, 397, 504, 554, 561, 570, 589, 591, 624, 637, 1504],
    ),
    (
        "japan-stations",
        "japan-stations.txt",
        "日本铁路车站资料",
        [12, 65, 108, 273, 287, 292, 297, 301, 386, 388, 400, 413, 582],
    ),
    (
        "china-railways",
        "china-railways.md",
        "中国铁路线路与车站资料",
        [2, 3, 17, 18, 21, 38, 33, 51, 52, 53, 54, 63, 64, 1575, 1989],
    ),
    (
        "chemicals",
        "chemicals.md",
        "化学品资料汇编",
        [19, 122, 123, 125, 128, 219, 357, 500, 1141, 1142, 1147, 1152],
    ),
    (
        "space",
        "space.md",
        "卫星与航天机构资料",
        [69, 77, 82, 99, 1526, 1126],
    ),
    (
        "sports",
        "sports.md",
        "体育人物与规则资料",
        [86, 92, 107, 295, 299, 304, 375, 393, 430, 431],
    ),
    (
        "hk-temples",
        "hk-temples.md",
        "香港庙宇资料",
        [110, 112, 113, 114, 117],
    ),
    (
        "europe-squares",
        "europe-squares.md",
        "巴黎与维也纳的广场和街道",
        [1889, 494, 469, 1027, 1910, 1913, 1931],
    ),
]


def render(file: str, title: str, sections: list[tuple[str, str]]) -> str:
    if file.endswith(".md"):
        body = "\n\n".join(f"## {head}\n\n{text}" for head, text in sections)
        return f"# {title}\n\n{body}\n"
    if file.endswith(".html"):
        body = "\n".join(f"<h2>{html.escape(h)}</h2>\n<p>{html.escape(t)}</p>" for h, t in sections)
        return (
            '<!doctype html>\n<html lang="zh-Hans">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n{body}\n"
            "</body>\n</html>\n"
        )
    body = "\n\n".join(f"{head}\n\n{text}" for head, text in sections)
    return f"{title}\n\n{body}\n"


def main(source: Path) -> None:
    articles = {a["paragraphs"][0]["id"]: a for a in json.loads(source.read_text("utf-8"))["data"]}
    entries = []
    for doc_id, file, title, ids in DOCUMENTS:
        pids = [f"DEV_{n}" for n in ids]
        sections = [(articles[i]["title"], articles[i]["paragraphs"][0]["context"]) for i in pids]
        (HERE / file).write_text(render(file, title, sections), "utf-8")
        entries.append(
            {
                "id": doc_id,
                "file": file,
                "title": title,
                "lang": "zh",
                "level": "official",
                "origin": pids,
                "licence": NOTE,
            }
        )
    manifest = {"name": "zh-cmrc", "documents": entries}
    (HERE / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE.resolve())
