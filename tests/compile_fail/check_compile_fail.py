#!/usr/bin/env python3
"""Compile each mistake under tests/compile_fail and check what the compiler says.

Each .cpp names what it expects in a comment:
  // expect: <text>    compilation fails, with exactly one error, and that
                       error (a static_assert) contains <text>;
  // expect: compiles  compilation succeeds without a warning (the control:
                       without it the harness would pass if nothing compiled).
Only -fsyntax-only: no code is generated, so the whole check takes seconds.

usage: check_compile_fail.py --cxx <compiler words...> --flags <flags...> --files <.cpp...>
"""
import concurrent.futures
import re
import subprocess
import sys


def parse_args(argv):
    groups = {"--cxx": [], "--flags": [], "--files": []}
    current = None
    for arg in argv:
        if arg in groups:
            current = groups[arg]
        elif current is None:
            sys.exit(f"unexpected argument {arg!r} before --cxx/--flags/--files")
        else:
            current.append(arg)
    if not groups["--cxx"] or not groups["--files"]:
        sys.exit(__doc__)
    return groups["--cxx"], groups["--flags"], groups["--files"]


def expectation(path):
    with open(path, encoding="utf-8") as f:
        match = re.search(r"^// expect: (.+)$", f.read(), re.MULTILINE)
    if match is None:
        return None
    return match.group(1).strip()


def check(cxx, flags, path):
    """(ok, report) for one file."""
    expected = expectation(path)
    if expected is None:
        return False, f"{path}: no '// expect:' comment"
    proc = subprocess.run(cxx + flags + ["-fsyntax-only", "-fdiagnostics-color=never", path],
                          capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    if expected == "compiles":
        if proc.returncode != 0 or out.strip():
            return False, f"{path}: the control must compile cleanly, but:\n{out}"
        return True, f"{path}: compiles"
    if proc.returncode == 0:
        return False, f"{path}: compiled, but it should have failed with: {expected}"
    errors = [line for line in out.splitlines() if re.search(r"\berror\b:", line)]
    if not any(expected in line for line in errors):
        return False, f"{path}: failed without the expected message {expected!r}:\n{out}"
    if len(errors) != 1:
        joined = "\n".join(errors)
        return False, f"{path}: the message is there, but among {len(errors)} errors (want one):\n{joined}"
    return True, f"{path}: refused with: {expected}"


def main():
    cxx, flags, files = parse_args(sys.argv[1:])
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda f: check(cxx, flags, f), files))
    for ok, report in results:
        print(("ok    " if ok else "FAIL  ") + report)
    if not any(expectation(f) == "compiles" for f in files):
        print("FAIL  no control file ('// expect: compiles')")
        return 1
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
