#!/usr/bin/env python3
"""Prints the ninja targets that the named meson tests (or suites, as
--suite NAME) need in BUILD_DIR: each test's executable and what it depends on
(the servers an end-to-end test starts, the hook library a hook test preloads).
.ci/run builds only these in the ThreadSanitizer tree, which runs a subset of
the suite: building every test there cost minutes for tests it never runs.
Usage: test_targets.py BUILD_DIR [--suite SUITE | TEST]..."""
import json
import os
import subprocess
import sys


def introspect(build_dir, what):
    out = subprocess.run(["meson", "introspect", build_dir, what], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main(argv):
    build_dir, args = argv[1], argv[2:]
    names, suites = set(), set()
    it = iter(args)
    for a in it:
        (suites.add(next(it)) if a == "--suite" else names.add(a))
    targets = {t["id"]: t for t in introspect(build_dir, "--targets")}
    root = os.path.abspath(build_dir)
    wanted = set()
    for test in introspect(build_dir, "--tests"):
        picked = test["name"] in names or any(s.split(":")[-1] in suites for s in test["suite"])
        if not picked:
            continue
        names.discard(test["name"])
        wanted.add(test["cmd"][0])
        for dep in test["depends"]:
            if dep in targets:
                wanted.update(targets[dep]["filename"])
    if names:
        sys.exit(f"test_targets.py: no such test: {' '.join(sorted(names))}")
    for path in sorted(wanted):
        if path.startswith(root + "/"):
            print(os.path.relpath(path, root))


if __name__ == "__main__":
    main(sys.argv)
