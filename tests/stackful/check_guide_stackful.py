#!/usr/bin/env python3
"""Fails if a ```c++ block of docs/GUIDE.md (the stackful part's fences) is not a
snippet of a compiled file: each must appear verbatim between
"// guide:begin NAME" and "// guide:end" in one of the files given after the guide.
(The stackless part uses ```cpp fences, checked by tests/io/check_guide.py.)"""
import re
import sys

guide, sources = sys.argv[1], sys.argv[2:]
snippets = []
for path in sources:
    text = open(path).read()
    snippets += [m.group(1).strip("\n") for m in re.finditer(r"// guide:begin \w+\n(.*?)// guide:end", text, re.S)]
blocks = re.findall(r"```c\+\+\n(.*?)```", open(guide).read(), re.S)
missing = [b for b in blocks if b.strip("\n") not in snippets]
for b in missing:
    print("GUIDE block not found in any compiled snippet:\n" + b, file=sys.stderr)
print(f"{len(blocks)} stackful guide blocks, {len(snippets)} snippets, {len(missing)} missing")
sys.exit(1 if missing or not blocks else 0)
