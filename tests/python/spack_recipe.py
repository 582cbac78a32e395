#!/usr/bin/env python3
"""Checks packaging/spack/package.py without Spack (python ast, stdlib only).

    spack_recipe.py --source SOURCE_DIR

- no placeholder homepage or fetch URL (patcoll has none outside its tree);
- version("0.1.0") besides main, equal to CMakeLists.txt's project() version;
- the test frameworks (googletest, benchmark) are type="test" only;
- the plotting packages (python, py-numpy, py-matplotlib) only under a
  variant that is off by default, Boost only under a variant;
- cmake_args passes PATCOLL_BUILD_TESTS.
Prints one line per failure and exits 1, else prints "ok".
"""
import argparse
import ast
import os
import re
import sys


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def calls(tree, name):
    """(positional literals, {keyword: literal}) of every call to name()."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            out.append(([literal(a) for a in node.args], {k.arg: literal(k.value) for k in node.keywords}))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    path = os.path.join(args.source, "packaging", "spack", "package.py")
    with open(path) as f:
        text = f.read()
    tree = ast.parse(text, path)
    errors = []

    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Patcoll"]
    if not classes:
        errors.append("no class Patcoll")
        body = []
    else:
        body = classes[0].body
    attributes = {}
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            attributes[node.targets[0].id] = literal(node.value)
    for name in ("homepage", "url", "git"):
        value = attributes.get(name)
        if value is not None and re.search(r"example|placeholder|github\.com/patcoll", str(value)):
            errors.append("%s is a placeholder: %s" % (name, value))

    with open(os.path.join(args.source, "CMakeLists.txt")) as f:
        project = re.search(r"project\(patcoll VERSION ([0-9.]+)", f.read())
    versions = {a[0]: k for a, k in calls(tree, "version") if a}
    if "main" not in versions:
        errors.append('no version("main")')
    released = [v for v in versions if v != "main"]
    if not project or project.group(1) not in released:
        errors.append("no version(%r) matching CMakeLists.txt's project() (versions: %s)"
                      % (project.group(1) if project else "?", ", ".join(versions)))

    variants = {a[0]: k for a, k in calls(tree, "variant") if a}
    deps = {}
    for a, k in calls(tree, "depends_on"):
        if a and isinstance(a[0], str):
            deps[re.split(r"[@+~ ]", a[0])[0]] = k

    def types(kw):
        t = kw.get("type", ("build", "link"))
        return {t} if isinstance(t, str) else set(t)

    for name in ("googletest", "benchmark"):
        if name not in deps:
            errors.append("no depends_on(%r) (type='test')" % name)
        elif types(deps[name]) != {"test"}:
            errors.append("%s must be type='test' only, is %s" % (name, sorted(types(deps[name]))))
    for name in ("python", "py-numpy", "py-matplotlib"):
        if name not in deps:
            continue
        when = deps[name].get("when") or ""
        variant = when.lstrip("+")
        if not when.startswith("+") or variant not in variants:
            errors.append("%s is not under a variant (when=%r)" % (name, when))
        elif variants[variant].get("default") is not False:
            errors.append("the plotting variant %r must be off by default" % variant)
    if "boost" in deps and not (deps["boost"].get("when") or "").startswith("+"):
        errors.append("boost must be optional (under a variant)")
    if "PATCOLL_BUILD_TESTS" not in text:
        errors.append("cmake_args does not pass PATCOLL_BUILD_TESTS")

    for e in errors:
        print("spack_recipe: %s" % e)
    if not errors:
        print("ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
