"""Schema descriptions for fields an args class inherits (the per-cloud cluster args from their common part).

Pulumi's component analyzer (pulumi 3.x `pulumi.provider.experimental.analyzer.Analyzer.get_docstring`) reads a
field's docstring from the source of the class it analyzes only, so inherited fields would be undocumented in the
schema the provider serves and `provider/<layer>/schema.json`. This looks the docstring up in the class that
declares the field. Installed on import by the args modules that inherit fields, so the provider host and
`provider/generate_schemas.py` see the same schema.
"""

from pulumi.provider.experimental import analyzer as _analyzer


def declaring_class(typ: type, name: str) -> type:
    """The class in `typ`'s MRO whose own annotations declare `name` (typ itself when none does)."""
    return next((cls for cls in getattr(typ, "__mro__", ()) if name in vars(cls).get("__annotations__", {})), typ)


def install() -> None:
    own = _analyzer.Analyzer.get_docstring
    if getattr(own, "inherited_docs", False):
        return

    def get_docstring(self, typ: type, name: str):
        return own(self, declaring_class(typ, name), name)

    get_docstring.inherited_docs = True
    _analyzer.Analyzer.get_docstring = get_docstring


install()
