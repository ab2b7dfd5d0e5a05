#!/usr/bin/env python3
"""Fails if a ```cpp block of docs/GUIDE.md is not a snippet of a compiled file.

Each block must appear verbatim (after stripping trailing spaces) between
"// guide:begin NAME" and "// guide:end" in one of the files given after the guide."""
import re
import sys

guide, sources = sys.argv[1], sys.argv[2:]
snippets = []
for path in sources:
    text = open(path).read()
    snippets += [m.group(1).strip("\n") for m in re.finditer(r"// guide:begin \w+\n(.*?)// guide:end", text, re.S)]
blocks = re.findall(r"```cpp\n(.*?)```", open(guide).read(), re.S)
missing = [b for b in blocks if b.strip("\n") not in snippets]
for b in missing:
    print("GUIDE block not found in any compiled snippet:\n" + b, file=sys.stderr)
print(f"{len(blocks)} guide blocks, {len(snippets)} snippets, {len(missing)} missing")
sys.exit(1 if missing or not blocks else 0)
