"""English distractor documents from the running Python's standard library, in the SQuAD layout `rag_eval
--distractors` reads: how the threshold holds as an English corpus grows (issue 12, "the threshold does not drift").

CMRC gives the Chinese side its distractors (other Wikipedia articles, docs/EVALUATION.md, session 10); no English
file of that layout is here. The standard library's documentation is: real English prose written by many people about
many subjects (networking, e-mail, dates, compression, cryptography, processes…), some of it on licences' ground
("copyright", "license", "warranty", "distribute" appear), none of it written for the natural-question set.

Each document is one public class (its docstring and its public methods' docstrings, in name order) or one public
function of a standard-library module or submodule, at least MIN_CHARS long; its paragraphs are the docstring's
blank-line-separated blocks. The documents are put in a seeded random order (seed 0) and the first N taken, so a
smaller set is part of every larger one. What is found depends on the Python version (3.11 here): the report records
the file's sha256 (`rag_eval` writes it with the corpus key).

    DEBUG=1 .venv/bin/python bench/stdlib_distractors.py --documents 370 --out var/distractors/stdlib-370.json
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import json
import pkgutil
import random
import sys
from pathlib import Path
from types import ModuleType

MIN_CHARS = 300
# Modules that open windows, print on import, or are the interpreter's own tests and tools.
SKIP = frozenset(
    {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test", "lib2to3", "ensurepip", "pydoc_data"}
)


def _quiet_import(name: str) -> ModuleType | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return importlib.import_module(name)
    except BaseException:  # a module this build lacks (a C extension), or one that refuses to import here
        return None


def modules() -> list[ModuleType]:
    """Every public standard-library module and submodule that imports here, in name order."""
    found: list[ModuleType] = []
    for name in sorted(n for n in sys.stdlib_module_names if not n.startswith("_") and n not in SKIP):
        module = _quiet_import(name)
        if module is None:
            continue
        found.append(module)
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), f"{name}."):
            if any(part.startswith("_") or part in ("test", "tests") for part in info.name.split(".")[1:]):
                continue
            if (sub := _quiet_import(info.name)) is not None:
                found.append(sub)
    return found


def _own(module: ModuleType, obj: object) -> bool:
    """Whether `obj` is defined by `module` (or by its C accelerator, "_json" for "json"), not imported into it."""
    home = getattr(obj, "__module__", None) or ""
    return home == module.__name__ or home.startswith("_")


def documents() -> list[tuple[str, str]]:
    """(qualified name, text) of every public class and function with MIN_CHARS of documentation, each once (an
    object re-exported by several modules, and a text several objects share, such as every codec's StreamReader)."""
    seen: set[int] = set()
    texts: set[str] = set()
    out: list[tuple[str, str]] = []
    for module in modules():
        for name, obj in sorted(vars(module).items()):
            if name.startswith("_") or id(obj) in seen or not _own(module, obj):
                continue
            if inspect.isclass(obj):
                head = inspect.getdoc(obj) or ""
                parts = [head]
                for member_name, member in sorted(vars(obj).items()):
                    doc = inspect.getdoc(member) if callable(member) and not member_name.startswith("_") else None
                    if doc and doc != head:
                        parts.append(f"{member_name}: {doc}")
                text = "\n\n".join(p for p in parts if p)
            elif inspect.isfunction(obj) or inspect.isbuiltin(obj):
                text = inspect.getdoc(obj) or ""
            else:
                continue
            seen.add(id(obj))
            if len(text) >= MIN_CHARS and text not in texts:
                texts.add(text)
                out.append((f"{module.__name__}.{name}", text))
    return out


def squad(picked: list[tuple[str, str]]) -> dict[str, object]:
    data = []
    for name, text in picked:
        paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
        data.append(
            {"id": f"stdlib/{name}", "title": name, "paragraphs": [{"context": p, "qas": []} for p in paragraphs]}
        )
    return {"version": f"python-{sys.version_info.major}.{sys.version_info.minor}-stdlib-docstrings", "data": data}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, required=True, help="how many documents (the first N in seed order)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    found = documents()
    random.Random(opts.seed).shuffle(found)
    if opts.documents > len(found):
        parser.error(f"only {len(found)} documents of at least {MIN_CHARS} characters are found here")
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    opts.out.write_text(json.dumps(squad(found[: opts.documents]), ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{opts.documents} of {len(found)} documents -> {opts.out}")


if __name__ == "__main__":
    main()
