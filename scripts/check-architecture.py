#!/usr/bin/env python3
"""Check ARCHITECTURE.md against the package's target graph.

Reads the JSON of `swift package dump-package` (run here, which reads Package.swift and builds
nothing; or read from --package-json) and ARCHITECTURE.md, and fails (exit 1), printing each disagreement, when:

- a non-test target of Package.swift has no `### Name` section (the heading is the target's
  name exactly, as in Package.swift);
- a module section (a `### Name` heading followed by a `May import:` line) names no target of
  Package.swift, appears twice, or has no `Not for:` line;
- a section's `May import:` line does not list exactly the target's dependencies. The line reads
      May import: MailModel, MailStore, CKernels (packages: GRDB, GRDBSQLite).
  targets first, separated by commas; products of other packages, when the target has any, in
  one parenthesis opening with `packages:`. Both sets are compared with Package.swift: the
  targets (dependencies by name that are targets of this package, or `.target(...)`) and the
  products (`.product(...)`, or a dependency by name that is no target here). Platform
  conditions are ignored: a dependency on Linux only is still listed. Other parentheses are
  remarks and are ignored. `May import: nothing.` when there is no dependency at all, and
  `May import: no target (packages: ...)` when there are only products. The line may wrap onto
  the lines after it, up to a blank line;
- the module graph drawn in ARCHITECTURE.md disagrees with Package.swift. The graph is the first
  fenced code block holding lines of the form `Name ──▶ Dep, Dep`: every non-test target must
  appear in it (on an arrow line, or by name on a line of its own for one with no target
  dependency), every arrow must be a dependency in Package.swift, every dependency in
  Package.swift must be drawn or follow from a path of drawn arrows (an arrow implied by a
  longer path may be left out), and every arrow must point to a name drawn further down;
- a markdown table cell in ARCHITECTURE.md is longer than 300 characters.

With --imports it also reads the Swift sources of each target (its `path`, else Sources/NAME or
Tests/NAME) and reports an `import` of a target of this package that the target does not declare
as a dependency: either one its dependencies bring (it builds, but the module's May import line
does not allow it) or one outside its graph altogether (it builds only when that module happens to
be built first). `make test` does not pass --imports.

Exit 0 with a one-line summary when all agree; 1 on a disagreement; 2 when the inputs cannot be
read (no python3 error trace: a message saying what is missing).
"""

import argparse
import json
import os
import re
import subprocess
import sys

MAX_CELL = 300
ARROW = re.compile(r"^\s*([A-Za-z_][\w-]*)\s+─+▶\s*(.*?)\s*$")
NAME = re.compile(r"[A-Za-z_][\w-]*")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
MAY_IMPORT = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*|__)?May import:(?:\*\*|__)?\s*(.*)$")
NOT_FOR = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*|__)?Not for:")
PACKAGES = re.compile(r"\(\s*packages?\s*:\s*([^)]*)\)", re.IGNORECASE)
FENCE = re.compile(r"^\s*(```+|~~~+)")
NOTHING = {"nothing", "none", "no target", "no targets", "no other target"}


class InputError(Exception):
    pass


def load_package(args):
    if args.package_json:
        try:
            with open(args.package_json, encoding="utf-8") as f:
                text = f.read()
        except OSError as error:
            raise InputError(f"cannot read {args.package_json}: {error.strerror}")
    else:
        command = [args.swift, "package", "dump-package"]
        try:
            result = subprocess.run(command, cwd=args.root, capture_output=True, text=True)
        except OSError as error:
            raise InputError(f"cannot run {' '.join(command)}: {error.strerror}")
        if result.returncode != 0:
            raise InputError(f"{' '.join(command)} failed:\n{result.stderr.strip()}")
        text = result.stdout
    try:
        package = json.loads(text)
        targets = package["targets"]
        if not isinstance(targets, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise InputError("the package description is not the JSON of `swift package dump-package`")
    return targets


def dependency_sets(targets):
    """name -> (type, target dependencies, product dependencies, path)."""
    names = {t.get("name") for t in targets if isinstance(t, dict)}
    graph = {}
    for target in targets:
        if not isinstance(target, dict) or not isinstance(target.get("name"), str):
            continue
        own, products = set(), set()
        for dependency in target.get("dependencies") or []:
            if not isinstance(dependency, dict) or len(dependency) != 1:
                continue
            kind, value = next(iter(dependency.items()))
            name = value[0] if isinstance(value, list) and value else None
            if not isinstance(name, str):
                continue
            if kind == "target" or (kind == "byName" and name in names):
                own.add(name)
            else:  # "product", or a name that is no target of this package
                products.add(name)
        graph[target["name"]] = (target.get("type", "regular"), own, products, target.get("path"))
    return graph


def split_lines_outside_fences(lines):
    """Yields (line number, line, inside a fenced block)."""
    fence = None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if match:
            marker = match.group(1)
            if fence is None:
                fence = marker[0] * 3
                yield number, line, True
                continue
            if marker.startswith(fence):
                fence = None
                yield number, line, True
                continue
        yield number, line, fence is not None


def read_sections(lines):
    """Module sections: name -> list of (heading line, May import text or None, has Not for)."""
    sections = {}
    current = None
    collecting = False
    for number, line, fenced in split_lines_outside_fences(lines):
        if fenced:
            collecting = False
            continue
        heading = HEADING.match(line)
        if heading:
            collecting = False
            level, title = len(heading.group(1)), heading.group(2).strip().strip("`").strip()
            if level <= 3:
                current = None
            if level == 3 and NAME.fullmatch(title):
                current = {"line": number, "may": None, "may_line": None, "not_for": False, "extra": []}
                sections.setdefault(title, []).append(current)
            continue
        if current is None:
            continue
        match = MAY_IMPORT.match(line)
        if match:
            if current["may"] is None:
                current["may"], current["may_line"] = match.group(1), number
                collecting = True
            else:
                current["extra"].append(number)
            continue
        if NOT_FOR.match(line):
            current["not_for"] = True
            collecting = False
            continue
        if collecting and line.strip():
            current["may"] += " " + line.strip()  # a May import line wrapped onto the next
        else:
            collecting = False
    return sections


def parse_may_import(text):
    """Returns (targets, products, problems)."""
    problems = []
    products = set()
    for group in PACKAGES.findall(text):
        products |= {p.strip().strip("`") for p in group.split(",") if p.strip()}
    rest = PACKAGES.sub("", text)
    rest = re.sub(r"\([^)]*\)", "", rest)  # remarks
    rest = rest.strip().rstrip(".").strip()
    targets = set()
    if rest.lower() in NOTHING:
        return targets, products, problems
    if not rest:
        problems.append("the May import line is empty (write `May import: nothing.`)")
        return targets, products, problems
    for item in rest.split(","):
        item = item.strip().strip("`").strip()
        if item.lower().startswith("and "):
            item = item[4:].strip()
        if not item:
            continue
        if NAME.fullmatch(item):
            targets.add(item)
        else:
            problems.append(f"cannot read {item!r} as a target name in the May import line")
    return targets, products, problems


def check_sections(graph, sections, errors):
    required = sorted(name for name, (kind, _, _, _) in graph.items() if kind != "test")
    for name in required:
        if name not in sections:
            errors.append(f"{name}: no `### {name}` section (a target in Package.swift)")
    checked = 0
    for name, found in sorted(sections.items()):
        module_sections = [s for s in found if s["may"] is not None]
        if name not in graph:
            for section in module_sections:
                errors.append(f"{name} (line {section['line']}): the section names no target in Package.swift")
            continue
        if len(found) > 1:
            lines = ", ".join(str(s["line"]) for s in found)
            errors.append(f"{name}: {len(found)} sections (lines {lines}); keep one")
        for section in found:
            where = f"{name} (line {section['line']})"
            if section["may"] is None:
                errors.append(f"{where}: no `May import:` line")
                continue
            for line in section["extra"]:
                errors.append(f"{where}: a second `May import:` line at line {line}")
            if not section["not_for"]:
                errors.append(f"{where}: no `Not for:` line")
            listed, listed_products, problems = parse_may_import(section["may"])
            errors.extend(f"{where}: {problem}" for problem in problems)
            _, own, products, _ = graph[name]
            for dependency in sorted(own - listed):
                errors.append(f"{where}: May import lacks {dependency}, a dependency in Package.swift")
            for dependency in sorted(listed - own):
                if dependency in graph:
                    errors.append(f"{where}: May import lists {dependency}, which Package.swift does not declare for {name}")
                else:
                    errors.append(f"{where}: May import lists {dependency}, which is no target in Package.swift")
            for product in sorted(products - listed_products):
                errors.append(f"{where}: May import lacks the package product {product} (in `(packages: …)`)")
            for product in sorted(listed_products - products):
                errors.append(f"{where}: May import lists the package product {product}, which Package.swift does not declare for {name}")
            checked += 1
    return checked


def reach(start, adjacency):
    """Every name a path of arrows leads to from start."""
    seen, stack = set(), [start]
    while stack:
        for following in adjacency.get(stack.pop(), ()):
            if following not in seen:
                seen.add(following)
                stack.append(following)
    return seen


def find_diagram(lines):
    """The first fenced block with an arrow line: list of (line number, text)."""
    block = None
    for number, line, fenced in split_lines_outside_fences(lines):
        if fenced and FENCE.match(line):
            if block is None:
                block = []
                continue
            if any(ARROW.match(text) for _, text in block):
                return block
            block = None
            continue
        if fenced and block is not None:
            block.append((number, line))
    return None


def check_diagram(graph, lines, errors):
    block = find_diagram(lines)
    if block is None:
        errors.append("diagram: no fenced block with `Name ──▶ Dep, …` lines")
        return 0
    position, edges = {}, {}
    for order, (number, text) in enumerate(block):
        arrow = ARROW.match(text)
        if arrow:
            name = arrow.group(1)
            position.setdefault(name, (order, number))
            deps = re.sub(r"\([^)]*\)", "", arrow.group(2))
            for dep in deps.split(","):
                dep = dep.strip().strip("`").strip()
                if not dep:
                    continue
                if not NAME.fullmatch(dep):
                    errors.append(f"diagram (line {number}): cannot read {dep!r} as a target name")
                    continue
                edges.setdefault(name, {})[dep] = number
            if name not in graph:
                errors.append(f"diagram (line {number}): {name} is no target in Package.swift")
        else:
            for word in NAME.findall(re.sub(r"\([^)]*\)", "", text)):
                if word in graph:
                    position.setdefault(word, (order, number))
    drawn = 0
    for name, deps in sorted(edges.items()):
        for dep, number in sorted(deps.items()):
            drawn += 1
            if dep not in graph:
                errors.append(f"diagram (line {number}): {name} ──▶ {dep}: {dep} is no target in Package.swift")
            elif name in graph and dep not in graph[name][1]:
                errors.append(f"diagram (line {number}): {name} ──▶ {dep} is drawn, but Package.swift does not declare it")
            if dep in graph and dep not in position:
                continue  # reported below as not drawn
            if name in position and dep in position and position[dep][0] <= position[name][0]:
                errors.append(f"diagram (line {number}): {name} ──▶ {dep} points up: draw {dep} below {name}")

    drawn_adjacency = {name: set(deps) for name, deps in edges.items()}
    package_adjacency = {name: own for name, (_, own, _, _) in graph.items()}
    for name, (kind, own, _, _) in sorted(graph.items()):
        if kind != "test" and name not in position:
            direct = sorted(d for d in own if not any(d in reach(o, package_adjacency) for o in own if o != d))
            hint = f"draw {name} ──▶ {', '.join(direct)}" if direct else f"name {name} on a line of its own"
            errors.append(f"diagram: {name} is not drawn; {hint}")
    for name, (kind, own, _, _) in sorted(graph.items()):
        if kind == "test" or name not in position:
            continue
        missing = own - reach(name, drawn_adjacency)
        # Only the dependencies that no other missing one leads to: drawing those fixes the rest.
        for dep in sorted(missing):
            if any(dep in reach(other, package_adjacency) for other in missing if other != dep):
                continue
            errors.append(f"diagram: {name} depends on {dep} in Package.swift, but no drawn path leads there; "
                          f"draw {name} ──▶ {dep}")
    return drawn


def check_cells(lines, errors):
    tables = 0
    previous_was_row = False
    for number, line, fenced in split_lines_outside_fences(lines):
        stripped = line.strip()
        if fenced or not stripped.startswith("|"):
            previous_was_row = False
            continue
        if not previous_was_row:
            tables += 1
        previous_was_row = True
        body = stripped[1:]
        if body.endswith("|") and not body.endswith("\\|"):
            body = body[:-1]
        for column, cell in enumerate(re.split(r"(?<!\\)\|", body), 1):
            cell = cell.strip()
            if len(cell) > MAX_CELL:
                errors.append(f"table cell (line {number}, column {column}): {len(cell)} characters, over {MAX_CELL}: "
                              f"{cell[:60]!r}…")
    return tables


IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_]\w*)", re.M)


def check_imports(graph, root, errors):
    adjacency = {name: own for name, (_, own, _, _) in graph.items()}
    for name, (kind, own, _, path) in sorted(graph.items()):
        folder = os.path.join(root, path or os.path.join("Tests" if kind == "test" else "Sources", name))
        if not os.path.isdir(folder):
            continue
        indirect = reach(name, adjacency)
        for directory, _, files in sorted(os.walk(folder)):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                file_path = os.path.join(directory, file)
                try:
                    with open(file_path, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                except OSError:
                    continue
                where = os.path.relpath(file_path, root)
                for module in sorted(set(IMPORT.findall(text))):
                    if module not in graph or module == name or module in own:
                        continue
                    if module in indirect:
                        errors.append(f"{name}: {where} imports {module}, a dependency of a dependency only: "
                                      f"declare it for {name} or stop importing it")
                    else:
                        errors.append(f"{name}: {where} imports {module}, which {name} does not depend on even "
                                      f"through others (it builds only when {module} happens to be built first)")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Check ARCHITECTURE.md against Package.swift's target graph.")
    parser.add_argument("--package-json", help="the output of `swift package dump-package` (default: run it)")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the swift to run (default: $SWIFT or swift)")
    parser.add_argument("--architecture", help="the file to check (default: ARCHITECTURE.md beside Package.swift)")
    parser.add_argument("--root", default=root, help="the package's folder (default: this script's parent's parent)")
    parser.add_argument("--imports", action="store_true", help="also check the Swift sources' imports against Package.swift")
    args = parser.parse_args()
    architecture = args.architecture or os.path.join(args.root, "ARCHITECTURE.md")

    try:
        graph = dependency_sets(load_package(args))
        try:
            with open(architecture, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as error:
            raise InputError(f"cannot read {architecture}: {error.strerror}")
    except InputError as error:
        print(f"check-architecture: {error}", file=sys.stderr)
        return 2

    errors = []
    sections = check_sections(graph, read_sections(lines), errors)
    arrows = check_diagram(graph, lines, errors)
    tables = check_cells(lines, errors)
    import_errors = []
    if args.imports:
        check_imports(graph, args.root, import_errors)
    name = os.path.relpath(architecture)
    if name.startswith(".."):
        name = architecture
    if errors or import_errors:
        for error in errors:
            print(f"{name}: {error}")
        for error in import_errors:
            print(f"imports: {error}")
        count = len(errors) + len(import_errors)
        print(f"check-architecture: {count} disagreement{'s' if count != 1 else ''} "
              f"between {name}{', the sources' if import_errors else ''} and Package.swift; update the one that is wrong")
        return 1
    targets = sum(1 for kind, *_ in graph.values() if kind != "test")
    print(f"check-architecture: {name} agrees with Package.swift: {sections} module sections for {targets} targets, "
          f"{arrows} arrows in the graph, no table cell over {MAX_CELL} characters in {tables} tables"
          + (", every import declared" if args.imports else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
