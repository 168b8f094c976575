"""YAML for untrusted stack files: bounded size, alias expansion and nesting; duplicate keys refused.

CI plans the stack files of pull requests, so a stack file is hostile input. PyYAML's safe loader
shares aliased nodes, which looks cheap, but everything after it (deep copies when a preset is
merged, the JSON the program's config is handed as, pydantic) expands them: a 600-byte "billion
laughs" took 90 s and 3 GB. The limits are checked on the parser's event stream, which PyYAML
produces without recursion, *before* the composer (which recurses) or the constructor run, so a
hostile file is refused in milliseconds whichever key it hides under.

Only the tags of YAML's core schema construct values (null, booleans, numbers, strings, sequences, mappings,
and `<<` merges): `!!binary`, `!!timestamp`, `!!set`, `!!omap` and `!!pairs`, which PyYAML's safe loader also
builds, are refused by name (issue #36): Pulumi reads a stack file's config as plain JSON values, so bytes or a
date object could only crash the program or mean something other than what the file says. An unquoted date
stays the string it is to Pulumi (YAML 1.2's core schema has no timestamp).

Duplicate keys are refused because YAML 1.2 forbids them and PyYAML silently keeps the last one:
a reviewer reading the first would approve a value that is not the one deployed.
"""

from __future__ import annotations

from typing import Any

import yaml

# Shipped stack files are 1-4 KiB; presets merged in are the program's own.
MAX_BYTES = 256 * 1024
# The cluster spec nests 6 levels deep; Pulumi's config adds 2.
MAX_DEPTH = 32
# Nodes after every alias is expanded: a shipped stack has a few hundred.
MAX_NODES = 50_000


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader less the constructors outside YAML's core schema."""


CoreLoader.yaml_constructors = {
    tag: constructor
    for tag, constructor in yaml.SafeLoader.yaml_constructors.items()
    if tag is None or tag.rsplit(":", 1)[-1] in ("null", "bool", "int", "float", "str", "seq", "map", "merge")
}
# Without the implicit resolver an unquoted 2026-01-01 is the string it is in YAML 1.2 (and to Pulumi).
CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if not tag.endswith(":timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class YamlLimitError(ValueError):
    """The document breaks a limit or repeats a key; ``line`` is 1-based where known."""

    def __init__(self, message: str, line: int | None = None, field: str = ""):
        self.line, self.field = line, field
        where = " ".join(part for part in (field, f"(line {line})" if line else "") if part)
        super().__init__(f"{where}: {message}" if where else message)


def _line(event_or_node: Any) -> int | None:
    mark = getattr(event_or_node, "start_mark", None)
    return mark.line + 1 if mark is not None else None


class _Open:
    """A collection the parser is inside: its expanded size so far and where its children are."""

    __slots__ = ("count", "anchor", "mapping", "expect_key", "key", "index")

    def __init__(self, anchor: str | None, mapping: bool):
        self.count, self.anchor, self.mapping = 1, anchor, mapping
        self.expect_key, self.key, self.index = True, "?", -1

    def enter(self, event: Any) -> None:
        """A child node starts: for a mapping, keys and values alternate; a sequence counts items."""
        if self.mapping:
            if self.expect_key:
                self.key = str(event.value) if isinstance(event, yaml.ScalarEvent) else "?"
            self.expect_key = not self.expect_key
        else:
            self.index += 1


def _path(stack: list[_Open]) -> str:
    parts = ""
    for level in stack:
        parts += (f".{level.key}" if parts else level.key) if level.mapping else f"[{level.index}]"
    return parts


def check_limits(text: str) -> None:
    """Walk the parser's events once: nesting depth and the node count with aliases expanded."""
    sizes: dict[str, int] = {}  # anchor -> expanded node count of what it names
    stack: list[_Open] = []
    total = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.NodeEvent) and stack:
            stack[-1].enter(event)
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if len(stack) >= MAX_DEPTH:
                raise YamlLimitError(f"nested deeper than {MAX_DEPTH} levels", _line(event), _path(stack))
            stack.append(_Open(event.anchor, isinstance(event, yaml.MappingStartEvent)))
            total += 1
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            closed = stack.pop()
            if closed.anchor is not None:
                sizes[closed.anchor] = closed.count
            if stack:
                stack[-1].count += closed.count
            continue
        if isinstance(event, yaml.ScalarEvent):
            count = 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in sizes:  # undefined, or an alias inside the node it names
                raise YamlLimitError(
                    f"alias *{event.anchor} refers to no complete anchor (undefined or recursive)",
                    _line(event),
                    _path(stack),
                )
            count = sizes[event.anchor]
        else:
            continue
        total += count
        if total > MAX_NODES:
            raise YamlLimitError(
                f"the file expands to more than {MAX_NODES} values (an alias "
                "counts as everything it names, each time it is used); write the values out "
                "or use fewer aliases",
                _line(event),
                _path(stack),
            )
        if stack:
            stack[-1].count += count


def _key_text(node: yaml.Node) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else f"<{node.id}>"


def _duplicates(node: yaml.Node, path: str, seen_nodes: set[int], out: list[YamlLimitError]) -> None:
    """Every repeated key in every mapping, with its dotted path (bounded by the depth check)."""
    if id(node) in seen_nodes:  # an aliased node is checked once
        return
    seen_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        first: dict[tuple[str, str], int | None] = {}
        for key, value in node.value:
            if key.tag == "tag:yaml.org,2002:merge":
                _duplicates(value, path, seen_nodes, out)
                continue
            name = _key_text(key)
            where = f"{path}.{name}" if path else name
            ident = (key.tag, name)
            if ident in first:
                out.append(
                    YamlLimitError(
                        f"duplicate key (first at line {first[ident]}); a key may appear once in a mapping",
                        _line(key),
                        where,
                    )
                )
            else:
                first[ident] = _line(key)
            _duplicates(value, where, seen_nodes, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _duplicates(item, f"{path}[{index}]", seen_nodes, out)


def load(text: str) -> tuple[Any, list[YamlLimitError]]:
    """The single document in ``text`` and every duplicate key in it (the caller reports them all).

    Raises YamlLimitError when a limit is broken, yaml.YAMLError when the text is not YAML.
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise YamlLimitError(f"{size} bytes; a stack file may have at most {MAX_BYTES}")
    check_limits(text)
    loader = CoreLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        problems: list[YamlLimitError] = []
        _duplicates(node, "", set(), problems)
        return loader.construct_document(node), problems
    finally:
        loader.dispose()
