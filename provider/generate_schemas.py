"""Writes provider/<layer>/schema.json: the schema each component package serves, as the Python SDK's component
provider infers it from the components' args classes (the code path `pulumi package add` runs through GetSchema).

    python provider/generate_schemas.py          # rewrite the checked-in schemas
    python provider/generate_schemas.py --check  # exit 1 if a checked-in schema is stale
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LAYERS = ("aws", "alicloud", "kubernetes")


def schema(layer: str) -> dict:
    import importlib

    from pulumi.provider.experimental.component import ComponentProvider

    components = importlib.import_module(f"components.{layer}").public_components()
    return json.loads(ComponentProvider(components, f"gpu-blueprints-{layer}").schema)


def render(layer: str) -> str:
    return json.dumps(schema(layer), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for layer in LAYERS:
        path = ROOT / "provider" / layer / "schema.json"
        text = render(layer)
        if "--check" in argv:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{path}: stale; run python provider/generate_schemas.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
