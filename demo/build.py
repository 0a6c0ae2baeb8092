"""Rebuild the bundled demo corpus from the real texts it is taken from (run by hand, not at run time).

    .venv/bin/python demo/build.py

Sources (see demo/LICENSES.md): Chinese Wikipedia passages from the CMRC 2018 trial set in
/work/shared/eval-data (CC BY-SA 4.0), licence texts from /usr/share/common-licenses (Debian's
base-files: Apache-2.0, GPL-2, GPL-3, CC0-1.0), and PEP 20 (public domain) from CPython's `this`
module. Texts are copied verbatim; only the container changes (Markdown headings for the Apache
licence's numbered sections, HTML for one article, PDF for two). The PDFs are committed so that
loading the demo needs neither fpdf2 nor a CJK font. Writes the files and demo/manifest.json.
"""

from __future__ import annotations

import codecs
import contextlib
import html
import io
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CMRC = Path("/work/shared/eval-data/cmrc2018/cmrc2018_trial.json")
LICENSES = Path("/usr/share/common-licenses")
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
WIKI = "https://zh.wikipedia.org/wiki/"
CMRC_NOTE = "Chinese Wikipedia via CMRC 2018 (Cui et al., 2019), CC BY-SA 4.0"

# (paragraph id, file, level, groups)
ARTICLES = [
    ("TRIAL_235", "zh/猴面包树.txt", "official", []),
    ("TRIAL_648", "zh/阿普伽新生儿评分.md", "official", []),
    ("TRIAL_411", "zh/2008年NBA总决赛.md", "official", []),
    ("TRIAL_723", "zh/MIT-OpenCourseWare.html", "reviewed", []),
    ("TRIAL_589", "zh/山东女子学院.pdf", "reviewed", []),
    ("TRIAL_21", "zh/亚硫酸盐.txt", "note", []),
    ("TRIAL_98", "zh/计算神经科学.md", "note", ["research"]),
]


def main() -> None:
    entries: list[dict[str, object]] = []
    data = {a["paragraphs"][0]["id"]: a for a in json.loads(CMRC.read_text("utf-8"))["data"]}
    for pid, rel, level, groups in ARTICLES:
        art = data[pid]
        title, context = art["title"], art["paragraphs"][0]["context"]
        path = HERE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".txt"):
            path.write_text(f"{title}\n\n{context}\n", "utf-8")
        elif rel.endswith(".md"):
            path.write_text(f"# {title}\n\n{context}\n", "utf-8")
        elif rel.endswith(".html"):
            path.write_text(_html(title, context), "utf-8")
        else:
            _pdf(path, title, [context], font=CJK_FONT)
        entries.append(
            {
                "file": rel,
                "source_id": f"zh-wiki/{title}",
                "title": title,
                "url": WIKI + title.replace(" ", "_"),
                "level": level,
                "groups": groups,
                "licence": CMRC_NOTE,
                "origin": f"{CMRC.name} paragraph {pid}",
            }
        )

    lic = HERE / "licenses"
    lic.mkdir(exist_ok=True)
    (lic / "apache-2.0.md").write_text(_apache_markdown((LICENSES / "Apache-2.0").read_text("utf-8")), "utf-8")
    for name, target in (("GPL-3", "gpl-3.0.txt"), ("GPL-2", "gpl-2.0.txt")):
        (lic / target).write_text((LICENSES / name).read_text("utf-8"), "utf-8")
    cc0 = (LICENSES / "CC0-1.0").read_text("utf-8")
    _pdf(lic / "cc0-1.0.pdf", "CC0 1.0 Universal", _pages(cc0, 2), font=None)
    entries += [
        {
            "file": "licenses/apache-2.0.md",
            "source_id": "licenses/apache-2.0",
            "title": "Apache License, Version 2.0",
            "url": "https://www.apache.org/licenses/LICENSE-2.0",
            "level": "official",
            "groups": [],
            "licence": "Apache License 2.0 text (ASF); headings added for its numbered sections",
            "origin": "/usr/share/common-licenses/Apache-2.0",
        },
        {
            "file": "licenses/gpl-3.0.txt",
            "source_id": "licenses/gpl-3.0",
            "title": "GNU General Public License, version 3",
            "url": "https://www.gnu.org/licenses/gpl-3.0.html",
            "level": "official",
            "groups": [],
            "licence": "verbatim copy; copying and distributing verbatim copies is permitted (FSF)",
            "origin": "/usr/share/common-licenses/GPL-3",
        },
        {
            # Disagrees with GPL-3 on the version number and date: the pair for the conflict feature.
            "file": "licenses/gpl-2.0.txt",
            "source_id": "licenses/gpl-2.0",
            "title": "GNU General Public License, version 2",
            "url": "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html",
            "level": "reviewed",
            "groups": [],
            "licence": "verbatim copy; copying and distributing verbatim copies is permitted (FSF)",
            "origin": "/usr/share/common-licenses/GPL-2",
        },
        {
            "file": "licenses/cc0-1.0.pdf",
            "source_id": "licenses/cc0-1.0",
            "title": "CC0 1.0 Universal",
            "url": "https://creativecommons.org/publicdomain/zero/1.0/legalcode",
            "level": "reviewed",
            "groups": [],
            "licence": "Creative Commons legal code, itself dedicated to the public domain (CC0)",
            "origin": "/usr/share/common-licenses/CC0-1.0",
        },
    ]
    (HERE / "notes").mkdir(exist_ok=True)
    (HERE / "notes" / "zen-of-python.txt").write_text(_zen(), "utf-8")
    entries.append(
        {
            "file": "notes/zen-of-python.txt",
            "source_id": "notes/zen-of-python",
            "title": "PEP 20 – The Zen of Python",
            "url": "https://peps.python.org/pep-0020/",
            "level": "note",
            "groups": [],
            "licence": "PEP 20 is placed in the public domain",
            "origin": "CPython Lib/this.py (rot13-decoded)",
        }
    )
    manifest = {"documents": sorted(entries, key=lambda e: str(e["source_id"]))}
    (HERE / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", "utf-8")
    print(f"wrote {len(entries)} documents", file=sys.stderr)


def _apache_markdown(text: str) -> str:
    """Numbered sections ("   2. Grant of Copyright License. Subject to ...") become "## 2. ..." headings."""
    out = ["# Apache License, Version 2.0", ""]
    section_re = re.compile(r"^\s{3}(\d)\. ([A-Z][^.]+)\.\s*(.*)$")
    for line in text.splitlines():
        m = section_re.match(line)
        if m:
            out += [f"## {m.group(1)}. {m.group(2)}", ""]
            if m.group(3):
                out.append(m.group(3))
        elif line.strip() == "END OF TERMS AND CONDITIONS":
            out += ["", "## Appendix: How to apply the Apache License to your work", "", line.strip()]
        else:
            out.append(line.strip())
    return "\n".join(out).strip() + "\n"


def _html(title: str, context: str) -> str:
    t, c = html.escape(title), html.escape(context)
    return (
        '<!doctype html>\n<html lang="zh-Hans">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{t}</title>\n<style>body {{ font-family: sans-serif; }}</style>\n"
        "<script>document.documentElement.dataset.demo = 'not indexed';</script>\n</head>\n<body>\n"
        f"<h1>{t}</h1>\n<p>{c}</p>\n"
        f"<footer><p>Source: Chinese Wikipedia, CC BY-SA 4.0.</p></footer>\n</body>\n</html>\n"
    )


def _pages(text: str, n: int) -> list[str]:
    paras = text.split("\n\n")
    half = len(paras) // n + 1
    return ["\n\n".join(paras[i : i + half]) for i in range(0, len(paras), half)]


def _pdf(path: Path, title: str, pages: list[str], *, font: Path | None) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(title)
    if font is not None:
        pdf.add_font("cjk", fname=str(font))
        family = "cjk"
    else:
        family = "Helvetica"
    for page in pages:
        pdf.add_page()
        pdf.set_font(family, size=11)
        pdf.multi_cell(0, 6, page)
    pdf.output(str(path))


def _zen() -> str:
    with contextlib.redirect_stdout(io.StringIO()):
        import this
    return codecs.decode(this.s, "rot13") + "\n"


if __name__ == "__main__":
    main()
