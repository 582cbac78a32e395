#!/usr/bin/env python3
"""Every PATCOLL_* environment variable is the configuration registry's.

The registry (src/core/config.cpp) is the only code that reads the
environment: a getenv (or secure_getenv, environ) anywhere else in src/,
tools/ or include/ fails this test, and so does a Python tool that reads a
PATCOLL_* variable the registry does not declare. patcoll-info --parsable
prints the registry; the configuration tables of the README and of
docs/guide/configuration.md must list exactly its variables, with its
defaults.

usage: config_registry.py --source DIR --info PATH-TO-patcoll-info
"""
import argparse
import os
import re
import subprocess
import sys

READERS = re.compile(r"\b(?:secure_getenv|getenv|environ)\b")
PYTHON_READ = re.compile(r"os\.(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*['\"](PATCOLL_[A-Z0-9_]+)")
README_ROW = re.compile(r"^\|\s*`PATCOLL_")
NAME = re.compile(r"`(PATCOLL_[A-Z0-9_]+)`")
REGISTRY = os.path.join("src", "core", "config.cpp")
TABLES = ("README.md", os.path.join("docs", "guide", "configuration.md"))


def registry_variables(info):
    """{name: default} in the registry's order, from patcoll-info --parsable."""
    out = subprocess.run([info, "--parsable"], check=True, capture_output=True, text=True).stdout
    variables = {}
    for line in out.splitlines():
        if line.startswith("variable:"):
            fields = line.split(":", 3)
            if fields[2] == "default":
                variables[fields[1]] = fields[3]
    return variables


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--info", required=True)
    args = parser.parse_args()
    failures = []
    variables = registry_variables(args.info)

    for top in ("src", "tools", "include"):
        for root, _, files in os.walk(os.path.join(args.source, top)):
            for name in files:
                path = os.path.join(root, name)
                relative = os.path.relpath(path, args.source)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                if name.endswith((".c", ".cc", ".cpp", ".h", ".hpp")):
                    if relative == REGISTRY:
                        continue
                    for number, line in enumerate(strip_comments(text).splitlines(), 1):
                        if READERS.search(line):
                            failures.append(f"{relative}:{number}: reads the environment outside the registry "
                                            f"({REGISTRY}): {line.strip()}")
                elif name.endswith(".py"):
                    for match in PYTHON_READ.finditer(text):
                        if match.group(1) not in variables:
                            failures.append(f"{relative}: reads {match.group(1)}, which the registry does not declare")

    # Configuration tables (the README's and the guide's page), rows:
    # | `NAME`[, `NAME`...] | default | meaning |
    for page in TABLES:
        in_table = {}
        with open(os.path.join(args.source, page), encoding="utf-8") as f:
            for line in f:
                if README_ROW.match(line):
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    default = cells[1].strip("`") if len(cells) > 2 else "?"
                    for name in NAME.findall(cells[0]):
                        in_table[name] = "" if default == "unset" else default
        for v, default in variables.items():
            if v not in in_table:
                failures.append(f"{page}'s configuration table lacks {v} (patcoll-info lists it)")
            elif in_table[v] != default:
                failures.append(f"{page} says {v} defaults to '{in_table[v]}', the registry '{default}'")
        for v in in_table:
            if v not in variables:
                failures.append(f"{page}'s configuration table lists {v}, which the registry does not declare")

    for failure in failures:
        print("FAIL", failure)
    if not failures:
        print(f"config_registry: {len(variables)} variables, one reader, README and docs/guide/configuration.md tables in step")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
