"""Print the `ForceNew: true` attributes of a Terraform resource schema file, one per line.

Used to make the snippets beside this file; run it against a local clone of the provider:

    python extract_forcenew.py GIT_DIR REF PATH [FUNCTION]

and, with --cut, to cut the resource's Schema map out of the same file (the `<name>.go.txt` extracts the
test reads, so it needs no clone): one header line naming the source and the lines, then those lines verbatim.

    python extract_forcenew.py --cut GIT_DIR COMMIT PATH REPOSITORY REF_NAME

Each output line is `<line number> <attribute path>`, the path being the schema keys that enclose
the `ForceNew: true` (nested blocks joined with "."), as the Go source spells them. FUNCTION limits
the scan to one `func NAME(` body when a file defines more than one schema. A line-based reader,
not a Go parser: it follows braces and quoted map keys, which is how these schema files are written.
"""

from __future__ import annotations

import re
import subprocess
import sys

KEY = re.compile(r'^\s*"([A-Za-z0-9_]+)"\s*:\s*(\{|&schema\.Schema\s*\{|tftags\.|names\.|schema\.)')
CONST_KEY = re.compile(r'^\s*(names\.Attr[A-Za-z0-9_]+)\s*:\s*(\{|&schema\.Schema\s*\{)')
SCHEMA = re.compile(r"Schema:\s*map\[string\]\*schema\.Schema\s*\{")
FORCE_NEW = re.compile(r'^\s*ForceNew\s*:\s*true\s*,')


def snake(const: str) -> str:
    """names.AttrKMSKeyID -> kms_key_id (the provider's own constants follow that spelling)."""
    name = const.removeprefix("names.Attr")
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def force_new(text: str, function: str | None = None) -> list[tuple[int, str]]:
    lines = text.splitlines()
    start, end = 0, len(lines)
    if function:
        start = next(i for i, text in enumerate(lines) if re.match(rf"^func {re.escape(function)}\(", text))
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("func ")), len(lines))
    found, stack, depth = [], [], 0  # stack: (depth at which the key's block opened, key)
    for number in range(start, end):
        line = lines[number]
        match = KEY.match(line) or CONST_KEY.match(line)
        if match:
            key = match.group(1)
            key = snake(key) if key.startswith("names.Attr") else key
            if "{" in line:
                stack.append((depth, key))
        if FORCE_NEW.match(line) and stack:
            found.append((number + 1, ".".join(k for _, k in stack)))
        bare = _bare(line)
        depth += bare.count("{") - bare.count("}")
        while stack and depth <= stack[-1][0]:
            stack.pop()
    return found


def _bare(line: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"|`[^`]*`', '""', line).split("//")[0]  # not in strings, comments


def schema_span(text: str) -> tuple[int, int]:
    """First and last line (1-based) of the file's first `Schema: map[string]*schema.Schema{` block: the
    resource's own schema, inside which every ForceNew the snippets list sits."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if SCHEMA.search(line))
    depth = 0
    for number in range(start, len(lines)):
        depth += _bare(lines[number]).count("{") - _bare(lines[number]).count("}")
        if depth <= 0:
            return start + 1, number + 1
    raise ValueError("the Schema map is not closed")


def main(argv: list[str]) -> int:
    cut = argv[:1] == ["--cut"]
    git_dir, ref, path, *rest = argv[1:] if cut else argv
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{ref}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    if cut:
        repository, ref_name = rest
        first, last = schema_span(text)
        print(f"// {repository} {ref_name} {ref} {path} lines {first}-{last}: the Schema map, verbatim")
        print("\n".join(text.splitlines()[first - 1:last]))
        return 0
    for number, attribute in force_new(text, rest[0] if rest else None):
        print(number, attribute)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
