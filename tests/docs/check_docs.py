#!/usr/bin/env python3
"""The project's documents point at things that exist.

- Every relative markdown link in README.md and docs/*.md names a file or
  folder of the tree (code blocks and inline code are skipped).
- README.md links the architecture, docs/ARCHITECTURE.md, and no longer sends
  readers to a DESIGN.md they do not have (issue 12, item 3).
- Every source path docs/ARCHITECTURE.md names in backticks (`src/duet/io/...`)
  exists, so "the one place each decision lives" stays true as code moves.

Usage: check_docs.py SOURCE_ROOT
"""
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
TREE_PATH = re.compile(r"`((?:src|tests|bench|examples|docs)/[A-Za-z0-9_./-]+)`")


def prose(text):
    return INLINE_CODE.sub("", FENCE.sub("", text))


def broken_links(root, doc):
    bad = []
    for target in LINK.findall(prose(doc.read_text())):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        if not path.exists():
            bad.append(f"{doc.relative_to(root)}: link to missing {target}")
    return bad


def missing_tree_paths(root, doc):
    bad = []
    for path in TREE_PATH.findall(FENCE.sub("", doc.read_text())):
        if not any(root.glob(path.rstrip("/"))):
            bad.append(f"{doc.relative_to(root)}: names missing path {path}")
    return bad


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    docs = [root / "README.md", root / "CONTRIBUTING.md", *sorted((root / "docs").glob("*.md"))]
    problems = [p for doc in docs for p in broken_links(root, doc)]
    readme = (root / "README.md").read_text()
    if "(docs/ARCHITECTURE.md)" not in readme:
        problems.append("README.md does not link docs/ARCHITECTURE.md")
    if "DESIGN.md" in readme:
        problems.append("README.md still names DESIGN.md, which a clone does not have")
    architecture = root / "docs" / "ARCHITECTURE.md"
    if architecture.exists():
        problems += missing_tree_paths(root, architecture)
    for p in problems:
        print(p)
    print(f"checked {len(docs)} documents: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
