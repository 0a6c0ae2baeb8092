"""Build the answerability and conflict test bed (issue 13, item 4): zh.json and en.json.

    .venv/bin/python eval-data/answerability/build.py            # writes zh.json, en.json, prints the counts
    .venv/bin/python eval-data/answerability/build.py --check    # rebuilds in memory, fails if the files differ
    .venv/bin/python eval-data/answerability/build.py --dump-en-pool   # the English passages, to write questions

Deterministic: the same sources and authoring files give byte-identical JSON. Everything the
bed holds is real text (CMRC 2018 paragraphs, licence texts); the only edits are the ones a
conflict pair is about (one value changed, or written another way), and they are listed per
pair. README.md says how each part was made.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from answerability_bench import apply_edit, edit_pattern  # noqa: E402  (the runner applies the copies' edits)

from rag_app.evaluation_answers import match_form  # noqa: E402  (pure: zhconv + textproc, no Django)

CMRC_DIR = ROOT.parent / "shared" / "eval-data" / "cmrc2018"
CMRC_FILES = ("cmrc2018_dev.json", "cmrc2018_trial.json")
FORMAT = "answerability/1"
SEED = 13

# English passages: (key, title, file). Texts read verbatim; see README.md for where each comes from.
EN_SOURCES: tuple[tuple[str, str, str], ...] = (
    ("GPL-3", "GNU General Public License, version 3", "demo/licenses/gpl-3.0.txt"),
    ("GPL-2", "GNU General Public License, version 2", "demo/licenses/gpl-2.0.txt"),
    ("LGPL-3", "GNU Lesser General Public License, version 3", "eval-data/natural/corpora/licenses/LGPL-3.txt"),
    ("LGPL-2.1", "GNU Lesser General Public License, version 2.1", "eval-data/natural/corpora/licenses/LGPL-2.1.txt"),
    ("MPL-2.0", "Mozilla Public License, version 2.0", "eval-data/natural/corpora/licenses/MPL-2.0.txt"),
    ("MPL-1.1", "Mozilla Public License, version 1.1", "eval-data/natural/corpora/licenses/MPL-1.1.txt"),
    ("Apache-2.0", "Apache License, Version 2.0", "/usr/share/common-licenses/Apache-2.0"),
    ("GFDL-1.3", "GNU Free Documentation License, version 1.3", "eval-data/natural/corpora/licenses/GFDL-1.3.txt"),
    ("Artistic", 'The "Artistic License" (Perl)', "eval-data/natural/corpora/licenses/Artistic.txt"),
    ("BSD", "BSD licence (Regents of the University of California)", "eval-data/natural/corpora/licenses/BSD.txt"),
    ("CC0-1.0", "CC0 1.0 Universal", "/usr/share/common-licenses/CC0-1.0"),
    ("GPL-1", "GNU General Public License, version 1", "eval-data/natural/corpora/licenses/GPL-1.txt"),
    ("LGPL-2", "GNU Library General Public License, version 2", "eval-data/natural/corpora/licenses/LGPL-2.txt"),
    ("GFDL-1.2", "GNU Free Documentation License, version 1.2", "eval-data/natural/corpora/licenses/GFDL-1.2.txt"),
    ("Zen", "The Zen of Python (PEP 20)", "demo/notes/zen-of-python.txt"),
)
EN_FAMILY = {
    **dict.fromkeys(("GPL-1", "GPL-2", "GPL-3", "LGPL-2", "LGPL-2.1", "LGPL-3", "GFDL-1.2", "GFDL-1.3"), "gnu"),
    **dict.fromkeys(("MPL-1.1", "MPL-2.0"), "mozilla"),
    **dict.fromkeys(("Apache-2.0", "BSD", "Artistic", "CC0-1.0", "Zen"), "permissive"),
}
CONFLICT_KINDS = {  # kind -> the flag a correct product raises
    "changed": True,  # the asked value differs
    "format": False,  # the same value written another way (七日 / 7天, 2021-02-07 / Feb 7, 2021, 北京 / 北京市)
    "paraphrase": False,  # the same claim in other words ("may not" / "cannot")
    "identical": False,  # two identical copies
    "unrelated": False,  # copies that differ only in a detail the question does not ask about
}
SLOTS = ("number", "date", "duration", "place", "person", "org", "yes_no", "other")


# --- shared -------------------------------------------------------------------------------------


def sha12(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def contains(haystack: str, needle: str) -> bool:
    """The metric's matching: NFKC, lower case, traditional -> simplified, whitespace removed."""
    n = match_form(needle)
    return bool(n) and n in match_form(haystack)


def occurs(text: str, old: str) -> bool:
    """`old` is in `text` the way apply_edit finds it (any whitespace run matches any other)."""
    return bool(edit_pattern(old).search(text))


@dataclass
class Passage:
    id: str
    title: str
    text: str
    origin: str
    group: str = ""  # article id (zh) or licence key (en): same-topic neighbours
    family: str = ""


@dataclass
class SiblingSet:
    id: str
    question: str
    gold: str
    key_phrases: list[str]
    slot: str
    origin: str
    source_question: str | None = None
    siblings: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class ConflictPair:
    id: str
    question: str
    slot: str
    kind: str
    base: Passage
    old: str  # the text that was replaced ("" for identical copies)
    new: str
    asked: str  # the asked value as the base states it
    origin: str
    source_question: str | None = None

    def documents(self, *, lang: str, index: int) -> list[dict[str, Any]]:
        """Two documents: the real passage and its copy. Which one is the copy alternates by pair,
        so "the newer one differs" is not a rule a detector could learn. The bed stores the real
        text for both and the copy's edit ({from, to}); the runner applies it (apply_edit), so
        the committed files hold only verbatim text."""
        edit = None if self.kind == "identical" else {"from": self.old, "to": self.new}
        if edit is not None and (
            not occurs(self.base.text, self.old) or apply_edit(self.base.text, edit) == self.base.text
        ):
            raise ValueError(f"{self.id}: {self.old!r} not in its passage")
        edits = [None, edit] if index % 2 == 0 else [edit, None]
        docs = []
        for doc_edit, year in zip(edits, ("2023", "2024"), strict=True):
            title = f"{self.base.title}（{year}年版）" if lang == "zh" else f"{self.base.title} ({year})"
            docs.append(
                {
                    "id": f"{self.id}-{year}",
                    "title": title,
                    "text": self.base.text,
                    "edit": doc_edit,
                    "effective_from": f"{year}-01-01",
                }
            )
        return docs


def bed_json(
    *,
    lang: str,
    description: str,
    passages: Sequence[Passage],
    sets: Sequence[SiblingSet],
    pairs: Sequence[ConflictPair],
    sources: dict[str, str],
) -> dict[str, Any]:
    used = {s.gold for s in sets} | {p for s in sets for p in s.siblings}
    assert used <= {p.id for p in passages}
    pair_rows = []
    documents = []
    for i, pair in enumerate(pairs):
        docs = pair.documents(lang=lang, index=i)
        documents += [{**d, "origin": pair.base.origin} for d in docs]
        pair_rows.append(
            {
                "id": pair.id,
                "question": pair.question,
                **({"source_question": pair.source_question} if pair.source_question else {}),
                "slot": pair.slot,
                "kind": pair.kind,
                "expect_conflict": CONFLICT_KINDS[pair.kind],
                "documents": [d["id"] for d in docs],
                "changed": {"from": pair.old, "to": pair.new} if pair.kind != "identical" else None,
                "asked_value": pair.asked,
                "origin": pair.base.origin,
            }
        )
    return {
        "format": FORMAT,
        "lang": lang,
        "description": description,
        "sources": sources,
        "siblings": {
            "passages": [{"id": p.id, "title": p.title, "text": p.text, "origin": p.origin} for p in passages],
            "sets": [
                {
                    "id": s.id,
                    "question": s.question,
                    **({"source_question": s.source_question} if s.source_question else {}),
                    "slot": s.slot,
                    "gold": s.gold,
                    "siblings": s.siblings,
                    "key_phrases": s.key_phrases,
                    "origin": s.origin,
                    **({"note": s.note} if s.note else {}),
                }
                for s in sets
            ],
        },
        "conflicts": {"documents": documents, "pairs": pair_rows},
    }


def settle_corpus(
    passages: Sequence[Passage],
    sets: list[SiblingSet],
    *,
    siblings_for: Callable[[SiblingSet, set[str]], list[str]],
    answers: Callable[[Passage, SiblingSet], bool],
) -> tuple[list[Passage], list[SiblingSet], list[str]]:
    """The sibling corpus: every passage that is a gold of some set, plus every other passage that
    does not answer any set (`answers`: it holds the set's key phrase, and for Chinese is about the
    same thing); such a passage would answer the question when the gold is withheld. Sets left with
    fewer than 2 siblings (passages on the same topic without the key phrase) are dropped, with the
    reason, until nothing changes."""
    log: list[str] = []
    while True:
        golds = {s.gold for s in sets}
        keep = [p for p in passages if p.id in golds or not any(answers(p, s) for s in sets)]
        kept_ids = {p.id for p in keep}
        dropped = False
        for s in list(sets):
            s.siblings = siblings_for(s, kept_ids - golds)
            if len(s.siblings) < 2:
                log.append(f"{s.id}: fewer than 2 siblings without its key phrase")
                sets.remove(s)
                dropped = True
        if not dropped:
            return keep, sets, log


def similarity_order(target: str, candidates: Sequence[Passage], tokens: Callable[[str], list[str]]) -> list[Passage]:
    """Candidates by cosine similarity of token counts to `target` (a same-topic ranking), best first."""
    t = Counter(tokens(target))
    tn = math.sqrt(sum(v * v for v in t.values())) or 1.0

    def score(p: Passage) -> float:
        c = Counter(tokens(p.text))
        dot = sum(v * c.get(k, 0) for k, v in t.items())
        return dot / (tn * (math.sqrt(sum(v * v for v in c.values())) or 1.0))

    return sorted(candidates, key=lambda p: (-score(p), p.id))


# --- English --------------------------------------------------------------------------------------


def en_paragraphs(text: str) -> list[str]:
    """Blank-line paragraphs; a heading-like paragraph (short, no final punctuation) is joined to the next."""
    raw = [p.strip("\n") for p in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")) if p.strip()]
    out: list[str] = []
    carry = ""
    for p in raw:
        s = p.strip()
        if (len(s) < 80 and not s.endswith((".", ":", ";"))) or len(s) < 40:
            carry += p + "\n\n"
            continue
        out.append((carry + p).strip("\n"))
        carry = ""
    if carry.strip():
        if out:
            out[-1] += "\n\n" + carry.strip("\n")
        else:
            out.append(carry.strip("\n"))
    return out


def _shingles(text: str) -> set[str]:
    w = re.findall(r"[a-z0-9]+", text.lower())
    return {" ".join(w[i : i + 5]) for i in range(max(1, len(w) - 4))}


def en_pool() -> list[Passage]:
    """Every paragraph of the English sources, near-duplicates across texts removed (GPL 2 and
    LGPL 2 share whole paragraphs): the first text in EN_SOURCES keeps its copy."""
    pool: list[Passage] = []
    seen: list[set[str]] = []
    for key, title, file in EN_SOURCES:
        path = Path(file) if file.startswith("/") else ROOT / file
        for i, para in enumerate(en_paragraphs(path.read_text(encoding="utf-8"))):
            sh = _shingles(para)
            if any(
                len(sh & o) / max(1, len(sh | o)) >= 0.5 or len(sh & o) / max(1, min(len(sh), len(o))) >= 0.8
                for o in seen
            ):
                continue
            seen.append(sh)
            pool.append(Passage(f"{key}#{i:03d}", title, para, f"{file} paragraph {i}", key, EN_FAMILY[key]))
    return pool


def _en_tokens(text: str) -> list[str]:
    stop = {"the", "of", "and", "or", "to", "a", "in", "this", "that", "any", "you", "is", "be", "by", "for", "it"}
    return [w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in stop]


def build_en() -> dict[str, Any]:
    pool = en_pool()
    by_id = {p.id: p for p in pool}
    authored = json.loads((HERE / "authoring" / "en_cases.json").read_text(encoding="utf-8"))
    sets: list[SiblingSet] = []
    pairs: list[ConflictPair] = []
    for n, case in enumerate(authored["cases"], 1):
        gold = by_id[case["at"]]
        for k in case["keys"]:
            if not contains(gold.text, k):
                raise ValueError(f"en case {n} ({case['at']}): key phrase {k!r} not in its passage")
        if case["slot"] not in SLOTS:
            raise ValueError(f"en case {n}: unknown slot {case['slot']}")
        if not case.get("skip"):  # "skip": why the question is no sibling set (its conflict pair stays)
            sets.append(SiblingSet(f"en-s{n:03d}", case["q"], gold.id, list(case["keys"]), case["slot"], gold.origin))
        conflict = case.get("conflict")
        if conflict:
            kind = conflict["kind"]
            if kind not in CONFLICT_KINDS:
                raise ValueError(f"en case {n}: unknown conflict kind {kind}")
            old, new = conflict.get("from", ""), conflict.get("to", "")
            asked = conflict.get("asked") or (old if kind in ("changed", "format") else case["keys"][0])
            pairs.append(
                ConflictPair(
                    f"en-c{n:03d}",
                    conflict.get("q", case["q"]),
                    conflict.get("slot", case["slot"]),
                    kind,
                    gold,
                    old,
                    new,
                    asked,
                    gold.origin,
                )
            )
    golds = Counter(s.gold for s in sets)
    shared = [g for g, c in golds.items() if c > 1]

    def siblings_for(s: SiblingSet, eligible: set[str]) -> list[str]:
        gold = by_id[s.gold]
        same_family = [p for p in pool if p.id in eligible and p.family == gold.family and p.id != gold.id]
        ranked = similarity_order(s.question + "\n" + gold.text, same_family, _en_tokens)
        out = [p.id for p in ranked if not any(contains(p.text, k) for k in s.key_phrases)]
        return out[:4]

    corpus, sets, log = settle_corpus(
        pool, sets, siblings_for=siblings_for, answers=lambda p, s: any(contains(p.text, k) for k in s.key_phrases)
    )
    base_ids = [p.base.id for p in pairs]
    dup = [b for b, c in Counter(base_ids).items() if c > 1]
    if dup:
        raise ValueError(f"conflict pairs share a base passage: {dup}")
    for line in log:
        print("en:", line, file=sys.stderr)
    if shared:
        print(f"en: {len(shared)} passages are the gold of two questions", file=sys.stderr)
    sources = {
        key: f"{file} (sha256 {sha12((Path(file) if file.startswith('/') else ROOT / file).read_text())})"
        for key, _, file in EN_SOURCES
    }
    return bed_json(
        lang="en",
        description=(
            "English sibling sets (licence paragraphs, questions written by hand) and conflict pairs "
            "(a licence paragraph and a copy with the asked value changed or written another way)."
        ),
        passages=corpus,
        sets=sets,
        pairs=pairs,
        sources=sources,
    )


# --- Chinese --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Article:
    id: str  # CMRC paragraph id (DEV_0)
    title: str
    context: str
    qas: tuple[tuple[str, str, tuple[str, ...]], ...]  # (qid, question, answers verbatim in the context)


def load_cmrc() -> list[Article]:
    out: list[Article] = []
    for name in CMRC_FILES:
        data = json.loads((CMRC_DIR / name).read_text(encoding="utf-8"))["data"]
        for art in data:
            para = art["paragraphs"][0]
            ctx = para["context"]
            qas = tuple(
                (
                    qa["id"],
                    qa["question"].strip(),
                    tuple(dict.fromkeys(a["text"] for a in qa["answers"] if a["text"] in ctx)),
                )
                for qa in para["qas"]
                if qa["question"].strip()
            )
            out.append(Article(str(para["id"]), str(art["title"]).strip(), ctx, qas))
    return out


_ZH_SENT = re.compile(r"[^。！？；]*[。！？；]+[”’」』）)]*|[^。！？；]+$")


def zh_sentences(text: str) -> list[str]:
    return [m.group(0) for m in _ZH_SENT.finditer(text.strip()) if m.group(0).strip()]


def zh_passages(article: Article, *, target: int = 170, tail: int = 70) -> list[str]:
    """The article cut at sentence ends into passages of about `target` characters (a short tail
    joins the previous passage). The passages put together give the article back exactly."""
    out: list[str] = []
    cur = ""
    for s in zh_sentences(article.context):
        cur += s
        if len(cur) >= target:
            out.append(cur)
            cur = ""
    if cur:
        if out and len(cur) < tail:
            out[-1] += cur
        else:
            out.append(cur)
    assert "".join(out) == article.context.strip()
    return out


def _zh_tokens(text: str) -> list[str]:
    import jieba

    return [t for t in jieba.lcut(match_form(text)) if len(t) >= 2 and re.search(r"[\u4e00-\u9fff0-9a-z]", t)]


_ZH_QWORDS = set(
    "什么 哪个 哪些 哪里 哪儿 哪家 哪位 哪一 哪年 哪国 多少 几个 为什么 怎么 怎样 如何 是否 是不是 谁 何时 何地 "
    "位于 属于 称为 叫做 一个 主要 其中 以及 因为 所以 可以 这个 那个".split()
)


def question_coverage(question: str, text: str) -> float:
    """Share of the question's content words that occur in `text` (a rough "is this passage the
    one it asks about")."""
    terms = [t for t in dict.fromkeys(_zh_tokens(question)) if t not in _ZH_QWORDS]
    if not terms:
        return 0.0
    hay = match_form(text)
    return sum(t in hay for t in terms) / len(terms)


def build_zh() -> dict[str, Any]:
    articles = load_cmrc()
    art_by_id = {a.id: a for a in articles}
    rng = random.Random(SEED)
    order = list(articles)
    rng.shuffle(order)
    authored = json.loads((HERE / "authoring" / "zh_cases.json").read_text(encoding="utf-8"))
    n_sets = int(authored["sibling_sets"])
    pairs = _zh_pairs(articles, [a.id for a in order], authored)
    used = {p.base.group for p in pairs}
    sets, passages = _zh_sets(
        order, exclude=used, rewrites=authored["rewrites"], n=n_sets, skip=set(authored["skip_questions"])
    )
    # Same-topic articles: each set's nearest article in all of CMRC (not one a conflict pair uses);
    # its passages join the corpus as siblings from another document.
    set_articles = [art_by_id[s.gold.rsplit("-p", 1)[0]] for s in sets]
    neighbour = _zh_neighbours(set_articles, [a for a in articles if a.id not in used])
    have = {p.group for p in passages}
    for art in set_articles:
        near = neighbour.get(art.id)
        if near and near not in have:
            parts = zh_passages(art_by_id[near])
            origin = f"CMRC 2018 {near} ({art_by_id[near].title})"
            passages += [
                Passage(f"{near}-p{i}", art_by_id[near].title, t, f"{origin}, passage {i + 1}/{len(parts)}", near)
                for i, t in enumerate(parts)
            ]
            have.add(near)
    by_id = {p.id: p for p in passages}

    def siblings_for(s: SiblingSet, eligible: set[str]) -> list[str]:
        gold = by_id[s.gold]
        own = [p for p in passages if p.group == gold.group and p.id != gold.id and p.id in eligible]
        near = [p for p in passages if p.group == neighbour.get(gold.group) and p.id in eligible]
        cand = own + similarity_order(s.question + gold.text, near, _zh_tokens)
        out = [p.id for p in cand if not any(contains(p.text, k) for k in s.key_phrases)]
        return out[:5]

    def answers(p: Passage, s: SiblingSet) -> bool:
        """A passage holding the answer answers the question when it is from the same article or
        is about what the question asks (most of its content words); "美国" or "2008年" in an
        unrelated article does not."""
        if not any(contains(p.text, k) for k in s.key_phrases):
            return False
        return p.group == by_id[s.gold].group or question_coverage(s.question, p.title + p.text) >= 0.5

    _, candidates, log = settle_corpus(passages, sets, siblings_for=siblings_for, answers=answers)
    # The first n sets (seeded article order) and the passages of their articles and neighbours;
    # settling again may drop a few, so take as many more as it dropped.
    take = n_sets
    while True:
        chosen = [SiblingSet(**{**vars(s), "siblings": []}) for s in candidates[:take]]
        groups = {by_id[s.gold].group for s in chosen}
        groups |= {neighbour[g] for g in list(groups) if neighbour.get(g)}
        kept = [p for p in passages if p.group in groups]
        corpus, chosen, log2 = settle_corpus(kept, chosen, siblings_for=siblings_for, answers=answers)
        if len(chosen) >= n_sets or take >= len(candidates):
            break
        take += n_sets - len(chosen)
    sets = chosen
    for line in log + log2:
        print("zh:", line, file=sys.stderr)
    return bed_json(
        lang="zh",
        description=(
            "Chinese sibling sets (CMRC 2018 articles cut into passages; the question's answer is in one) and "
            "conflict pairs (a CMRC 2018 article and a copy with the asked value changed or written another way)."
        ),
        passages=corpus,
        sets=sets,
        pairs=pairs,
        sources={
            name: f"../shared/eval-data/cmrc2018/{name} (sha256 {sha_file(CMRC_DIR / name)})" for name in CMRC_FILES
        },
    )


def sha_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def _zh_sets(
    order: Sequence[Article], *, exclude: set[str], rewrites: dict[str, str], n: int, skip: set[str]
) -> tuple[list[SiblingSet], list[Passage]]:
    """One question per article: the first CMRC question whose (shortest) answer is in exactly one
    passage of the article and whose content words are mostly in that passage or the title."""
    sets: list[SiblingSet] = []
    passages: list[Passage] = []
    for art in order:
        if art.id in exclude or len(sets) >= n + 160:  # spare ones: settle_corpus may drop some
            continue
        parts = zh_passages(art)
        if len(parts) < 2:
            continue
        for qid, question, answers in art.qas:
            if qid in skip:  # a sibling states the answer in other words (authoring/zh_cases.json)
                continue
            good = [a for a in answers if len(a.strip()) >= 2 and len(a) <= 30]
            if not good:
                continue
            answer = min(good, key=len)
            holders = [i for i, p in enumerate(parts) if contains(p, answer)]
            if len(holders) != 1:
                continue
            gold_text = parts[holders[0]]
            if question_coverage(question, art.title + gold_text) < 0.6:
                continue
            slot = zh_question_type(question, answer)
            text = rewrites.get(qid, question)
            sets.append(
                SiblingSet(
                    f"zh-s-{qid}",
                    text,
                    f"{art.id}-p{holders[0]}",
                    [answer],
                    slot,
                    f"CMRC 2018 {art.id} ({art.title}), question {qid}",
                    source_question=question if text != question else None,
                )
            )
            passages += [
                Passage(
                    f"{art.id}-p{i}",
                    art.title,
                    p,
                    f"CMRC 2018 {art.id} ({art.title}), passage {i + 1}/{len(parts)}",
                    art.id,
                )
                for i, p in enumerate(parts)
            ]
            break
    # Trim to n at the end, after the spare ones have had their chance in settle_corpus.
    return sets, passages


def zh_question_type(question: str, answer: str) -> str:
    """What a sibling-set question asks for: the typed slots of zh_slot, else read off the question word."""
    typed = zh_slot(question, answer)
    if typed:
        return typed
    rules = (
        ("duration", "多久|多长时间|多少年|几年|多少天|几天|多少个月|几个月"),
        ("date", "哪年|哪一年|何时|什么时候|哪天|几月|何年|时间"),
        ("number", "多少|几[个座名位次场条种项家所届人]|几"),
        ("person", "谁|哪位|什么人"),
        ("place", "哪里|在哪|哪个城市|哪个国家|哪国|什么地方|哪个省|哪座|哪个地区|何处|位于"),
        ("org", "哪家|哪个公司|什么公司|哪所|哪个机构|什么机构|哪个组织|哪个俱乐部|哪支|哪个球队|哪个大学"),
        ("yes_no", "是否|吗[？?]?$|是不是|有没有"),
    )
    for slot, pattern in rules:
        if re.search(pattern, question):
            return slot
    return "other"


def _zh_neighbours(targets: Sequence[Article], candidates: Sequence[Article]) -> dict[str, str]:
    """Each target article's most similar other article (tf-idf cosine over its words), when the
    similarity says they share a topic (>= 0.15); else no neighbour."""
    docs = {a.id: Counter(_zh_tokens(a.title + a.context)) for a in [*targets, *candidates]}
    df = Counter(tok for v in docs.values() for tok in v)
    n = len(docs)

    def tfidf(v: Counter[str]) -> dict[str, float]:
        w = {k: c * math.log((1 + n) / (1 + df[k])) for k, c in v.items()}
        norm = math.sqrt(sum(x * x for x in w.values())) or 1.0
        return {k: x / norm for k, x in w.items()}

    weighted = {g: tfidf(v) for g, v in docs.items()}
    index: dict[str, list[tuple[str, float]]] = {}
    for a in candidates:
        for k, x in weighted[a.id].items():
            index.setdefault(k, []).append((a.id, x))
    out: dict[str, str] = {}
    for t in targets:
        scores: dict[str, float] = {}
        for k, x in weighted[t.id].items():
            for other, y in index.get(k, []):
                if other != t.id:
                    scores[other] = scores.get(other, 0.0) + x * y
        if scores:
            best, score = max(scores.items(), key=lambda kv: (kv[1], kv[0]))
            if score >= 0.15:
                out[t.id] = best
    return out


# Answer types of CMRC answers, from the question word and the answer's form.
_UNIT = (
    r"(?:公里|千米|平方公里|平方米|米|厘米|毫米|公顷|吨|千克|公斤|克|人|名|座|个|家|所|条|辆|架|艘|层|届|次|场|项|本|部|种|位|"
    r"亿元|万元|元|美元|港元|欧元|度|岁|票|户|间|台|匹|卷|集|首|页|倍|%)"
)
_NUMBER_RE = re.compile(rf"^(?:约|大约|超过|逾|近)?\d+(?:\.\d+)?(?:多)?(?:万|亿)?\s*{_UNIT}$")
_DATE_RE = re.compile(r"^\d{4}年(?:\d{1,2}月(?:\d{1,2}日)?)?$")
_DURATION_RE = re.compile(
    r"^(?:约|大约)?(?:\d+|[一二两三四五六七八九十半]+)(?:个)?(?:年|个月|月|周|星期|天|日|小时|分钟|秒)(?:多|半)?$"
)
_ORG_END = re.compile(r"(?:公司|大学|学院|俱乐部|队|协会|集团|组织|银行|委员会|电视台|出版社|铁路局|局|部|社|厂|党)$")


def zh_slot(question: str, answer: str) -> str | None:
    import jieba.posseg as pseg

    if _DATE_RE.match(answer):
        return "date"
    if (
        _DURATION_RE.match(answer)
        and not re.fullmatch(r"\d{3,4}年", answer)
        and re.search("多久|多长|多少年|几年|多少天|几天|多少个月|几个月|寿命|期限|有效期", question)
    ):
        return "duration"
    if _NUMBER_RE.match(answer):
        return "number"
    flags = [w.flag for w in pseg.cut(answer)]
    if "谁" in question and len(answer) <= 12 and flags and all(f in ("nr", "nrfg", "nrt", "x") for f in flags):
        return "person"
    if re.search(_PLACE_Q, question) and len(answer) <= 10 and flags and all(f.startswith("ns") for f in flags):
        return "place"
    if re.search(_ORG_Q, question) and len(answer) <= 16 and _ORG_END.search(answer):
        return "org"
    return None


_PLACE_Q = "哪里|哪个城市|哪个国家|哪国|什么地方|哪个省|在哪|哪座城市|哪个地区|哪个州"
_ORG_Q = "哪家|哪个公司|什么公司|哪所|哪个机构|什么机构|哪个组织|哪个俱乐部|哪支|哪个球队|哪个大学|哪间"


_CN_DIGITS = "零一二三四五六七八九"


def cn_number(n: int) -> str:
    """1..9999 in Chinese numerals as written in running text (十五, 六十一, 一百零八)."""
    if not 0 < n < 10000:
        raise ValueError(n)
    out = ""
    units = [(1000, "千"), (100, "百"), (10, "十"), (1, "")]
    zero = False
    for value, unit in units:
        d = n // value % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += "零"
            zero = False
        out += ("" if (value == 10 and d == 1 and not out) else _CN_DIGITS[d]) + unit
    return out


_CN_VALUE = {c: i for i, c in enumerate(_CN_DIGITS)} | {"两": 2, "〇": 0}


def parse_cn_number(text: str) -> int | None:
    if not text or any(c not in _CN_VALUE and c not in "十百千" for c in text):
        return None
    total, digit = 0, None
    for c in text:
        if c in _CN_VALUE:
            digit = _CN_VALUE[c]
        else:
            mult = {"十": 10, "百": 100, "千": 1000}[c]
            total += (1 if digit is None else digit) * mult
            digit = None
    return total + (digit or 0)


def bump_number(raw: str) -> str:
    """Another value of the same form: 364.6 -> 474.0 (same decimals), 7 -> 9, 两 -> 五."""
    if re.fullmatch(r"\d+", raw):
        n = int(raw)
        m = n + max(2, round(n * 0.3))
        return str(m)
    if re.fullmatch(r"\d+\.\d+", raw):
        decimals = len(raw.split(".")[1])
        return f"{float(raw) * 1.3:.{decimals}f}"
    v = parse_cn_number(raw)
    if v is not None:
        return cn_number(v + max(2, round(v * 0.3)))
    raise ValueError(raw)


_NUM_IN = re.compile(r"\d+(?:\.\d+)?|[一二两三四五六七八九十百千]+")


def change_value(slot: str, answer: str) -> str:
    """The answer with its value changed (number, date, duration)."""
    if slot == "date":
        m = re.fullmatch(r"(\d{4})年(?:(\d{1,2})月(?:(\d{1,2})日)?)?", answer)
        assert m
        y, mo, d = m.group(1), m.group(2), m.group(3)
        if d:
            nd = int(d) + 5 if int(d) <= 23 else int(d) - 9
            return f"{y}年{mo}月{nd}日"
        if mo:
            nm = int(mo) + 3 if int(mo) <= 9 else int(mo) - 4
            return f"{y}年{nm}月"
        ny = int(y) + 3 if int(y) < 2015 else int(y) - 4
        return f"{ny}年"
    m = _NUM_IN.search(answer)
    if not m:
        raise ValueError(answer)
    return answer[: m.start()] + bump_number(m.group(0)) + answer[m.end() :]


def format_value(slot: str, answer: str) -> str | None:
    """The same value written another way, or None when this answer has no natural other form."""
    if slot == "date":
        m = re.fullmatch(r"(\d{4})年(\d{1,2})月(\d{1,2})日", answer)
        return f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}" if m else None
    m = re.search(r"\d+", answer)
    if m and not re.search(r"\d+\.\d", answer) and 0 < int(m.group(0)) < 100 and "%" not in answer:
        if slot == "duration" and answer.endswith("个月") and int(m.group(0)) == 12:
            return "一年"
        return answer[: m.start()] + cn_number(int(m.group(0))) + answer[m.end() :]
    cn = re.search(r"[一二两三四五六七八九十]+", answer)
    if cn:
        v = parse_cn_number(cn.group(0))
        if v:
            return answer[: cn.start()] + str(v) + answer[cn.end() :]
    return None


def _zh_pairs(articles: Sequence[Article], order_ids: Sequence[str], authored: dict[str, Any]) -> list[ConflictPair]:
    """Conflict pairs: typed CMRC questions (changed value, or the same value written another way,
    or identical / unrelated-detail copies) plus the hand-written ones (yes/no, more durations,
    place names with and without 市/省)."""
    by_id = {a.id: a for a in articles}
    plan: dict[str, int] = authored["conflict_plan"]  # "changed:number" -> how many
    pairs: list[ConflictPair] = []
    used: set[str] = set()
    # Hand-written first: they name their articles.
    for i, h in enumerate(authored["conflicts"], 1):
        art = by_id[h["article"]]
        base = Passage(art.id, art.title, art.context.strip(), f"CMRC 2018 {art.id} ({art.title})", art.id)
        if h["kind"] != "identical" and not occurs(base.text, h["from"]):
            raise ValueError(f"zh hand-written conflict {i}: {h['from']!r} not in {art.id}")
        if art.id in used:
            raise ValueError(f"zh hand-written conflict {i}: {art.id} used twice")
        used.add(art.id)
        pairs.append(
            ConflictPair(
                f"zh-c-h{i:02d}",
                h["q"],
                h["slot"],
                h["kind"],
                base,
                h.get("from", ""),
                h.get("to", ""),
                h.get("asked") or h.get("from") or "",
                base.origin,
            )
        )
    counts = Counter(plan_key(p.kind, p.slot) for p in pairs)
    # Typed CMRC questions, one pair per article, articles in the seeded order.
    typed: list[tuple[Article, str, str, str, str]] = []  # (article, qid, question, answer, slot)
    for aid in order_ids:
        art = by_id[aid]
        for qid, question, answers in art.qas:
            good = [a for a in answers if len(a) >= 2]
            if not good:
                continue
            answer = min(good, key=len)
            slot = zh_slot(question, answer)
            if slot and art.context.count(answer) >= 1 and question_coverage(question, art.title + art.context) >= 0.6:
                typed.append((art, qid, question, answer, slot))
                break
    entity_pool: dict[str, list[str]] = {}
    for _, _, _, answer, slot in typed:
        entity_pool.setdefault(slot, []).append(answer)
    rng = random.Random(SEED)
    titles_seen: Counter[str] = Counter()
    for art, qid, question, answer, slot in typed:
        if art.id in used:
            continue
        topic = re.sub(r"[\d\s]", "", art.title)[-1:]  # 站, 路, 线...: one cluster should not dominate
        if titles_seen[topic] >= 6:
            continue
        base = Passage(art.id, art.title, art.context.strip(), f"CMRC 2018 {art.id} ({art.title})", art.id)
        pair = _zh_typed_pair(base, qid, question, answer, slot, plan, counts, entity_pool, rng, authored)
        if pair is None:
            continue
        pairs.append(pair)
        counts[plan_key(pair.kind, pair.slot)] += 1
        used.add(art.id)
        titles_seen[topic] += 1
    missing = {k: v - counts[k] for k, v in plan.items() if counts[k] < v}
    if missing:
        print(f"zh: conflict plan not filled: {missing}", file=sys.stderr)
    return pairs


def _zh_typed_pair(
    base: Passage,
    qid: str,
    question: str,
    answer: str,
    slot: str,
    plan: dict[str, int],
    counts: Counter[str],
    entity_pool: dict[str, list[str]],
    rng: random.Random,
    authored: dict[str, Any],
) -> ConflictPair | None:
    text = authored["rewrites"].get(qid, question)
    src = question if text != question else None
    origin = f"{base.origin}, question {qid}"

    def make(kind: str, old: str, new: str, asked: str) -> ConflictPair:
        return ConflictPair(f"zh-c-{qid}", text, slot, kind, base, old, new, asked, origin, src)

    # Fill the plan in a fixed order of preference per answer.
    for kind in ("changed", "format", "unrelated", "identical"):
        key = plan_key(kind, slot)
        if counts[key] >= plan.get(key, 0):
            continue
        if kind == "changed":
            if slot in ("number", "date", "duration"):
                try:
                    new = change_value(slot, answer)
                except (ValueError, AssertionError):
                    continue
            else:
                options = [
                    e
                    for e in entity_pool.get(slot, [])
                    if e != answer
                    and e not in base.text
                    and answer not in e
                    and e not in answer
                    and abs(len(e) - len(answer)) <= 2
                    and entity_kind(slot, e) == entity_kind(slot, answer)
                ]
                if not options:
                    continue
                new = rng.choice(sorted(set(options)))
            if new == answer or new in base.text:
                continue
            return make("changed", answer, new, answer)
        if kind == "format":
            formatted = format_value(slot, answer)
            if not formatted or formatted == answer or formatted in base.text:
                continue
            return make("format", answer, formatted, answer)
        if kind == "unrelated":
            other = _unrelated_detail(base.text, answer)
            if other is None:
                continue
            return make("unrelated", other[0], other[1], answer)
        return make("identical", "", "", answer)
    return None


def entity_kind(slot: str, name: str) -> str:
    """A swap stays plausible: a country for a country, a university for a university, a
    transliterated name (with ·) for another one."""
    if slot == "org":
        m = _ORG_END.search(name)
        return m.group(0) if m else ""
    if slot == "place":
        if name in _COUNTRIES:
            return "country"
        if name.endswith(("洋区", "洋", "海")):
            return "sea"
        return name[-1] if name[-1] in "国市省州县区岛山河湖洲府镇村" else "other"
    if slot == "person":
        return "transliterated" if "·" in name or re.search(r"[a-zA-Z]", name) else "chinese"
    return ""


_COUNTRIES = frozenset(
    (
        "美国 英国 法国 德国 日本 中国 韩国 朝鲜 俄罗斯 意大利 西班牙 葡萄牙 "
        "荷兰 比利时 瑞士 瑞典 挪威 丹麦 芬兰 冰岛 爱尔兰 奥地利 波兰 捷克 "
        "匈牙利 希腊 土耳其 印度 巴西 阿根廷 墨西哥 加拿大 澳洲 澳大利亚 "
        "新西兰 纽西兰 埃及 南非 以色列 伊朗 伊拉克 泰国 越南 马来西亚 新加坡 "
        "印尼 印度尼西亚 菲律宾 蒙古 智利 秘鲁 哥伦比亚 古巴 乌克兰 奥地利 "
        "罗马尼亚 保加利亚 塞尔维亚 克罗地亚 斯洛文尼亚 莱索托 肯尼亚 尼日利亚 "
        "沙特阿拉伯 巴基斯坦 孟加拉 缅甸 柬埔寨 老挝 尼泊尔 斯里兰卡 苏联"
    ).split()
)


def plan_key(kind: str, slot: str) -> str:
    """Identical and unrelated-detail copies are planned over all slots together."""
    return f"{kind}:{slot}" if kind in ("changed", "format") else f"{kind}:any"


def _unrelated_detail(text: str, answer: str) -> tuple[str, str] | None:
    """A year or number in a sentence that does not hold the answer, and a changed version of it."""
    for sentence in zh_sentences(text):
        if answer in sentence:
            continue
        m = re.search(r"(?<!\d)(1[5-9]\d\d|20[0-2]\d)年", sentence)
        if m and text.count(m.group(0)) == 1 and m.group(0) not in answer:
            return m.group(0), f"{int(m.group(1)) + 2}年"
    return None


# --- main ---------------------------------------------------------------------------------------


def counts(bed: dict[str, Any]) -> dict[str, Any]:
    sets = bed["siblings"]["sets"]
    pairs = bed["conflicts"]["pairs"]
    return {
        "sibling_sets": len(sets),
        "sibling_passages": len(bed["siblings"]["passages"]),
        "sibling_sets_by_slot": dict(sorted(Counter(s["slot"] for s in sets).items())),
        "siblings_per_set": dict(sorted(Counter(len(s["siblings"]) for s in sets).items())),
        "reworded": sum("source_question" in s for s in sets),
        "conflict_pairs": len(pairs),
        "conflict_documents": len(bed["conflicts"]["documents"]),
        "conflict_by_kind_slot": dict(sorted(Counter(f"{p['kind']}:{p['slot']}" for p in pairs).items())),
        "expect_conflict": sum(p["expect_conflict"] for p in pairs),
        "expect_no_conflict": sum(not p["expect_conflict"] for p in pairs),
        "cases": len(sets) + len(pairs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--check", action="store_true", help="fail if the committed files differ from a rebuild")
    ap.add_argument("--dump-en-pool", action="store_true", help="print the English passages with their ids")
    ap.add_argument("--lang", choices=["zh", "en"], default=None)
    args = ap.parse_args(argv)
    if args.dump_en_pool:
        for p in en_pool():
            print(f"=== {p.id} ({len(p.text)})\n{p.text}")
        return 0
    status = 0
    builders: dict[str, Callable[[], dict[str, Any]]] = {"zh": build_zh, "en": build_en}
    for lang in [args.lang] if args.lang else ["zh", "en"]:
        bed = builders[lang]()
        path = HERE / f"{lang}.json"
        text = json.dumps(bed, ensure_ascii=False, indent=1) + "\n"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path.name} differs from a rebuild", file=sys.stderr)
                status = 1
        else:
            path.write_text(text, encoding="utf-8")
        print(lang, json.dumps(counts(bed), ensure_ascii=False))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
