#!/usr/bin/env python3
"""Regenerate schemas/*.schema.json from the strict API models in migrator/apimodels.py.

    python scripts/gen_schemas.py          # write the files
    python scripts/gen_schemas.py --check  # exit 1 when a checked-in schema is out of date
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from migrator.knowledge.apimodels import RELEASES, kinds, model_for  # noqa: E402

SCHEMAS = ROOT / "schemas"


def generated() -> dict[Path, str]:
    out = {}
    for version in RELEASES:
        for kind in kinds()[:2]:  # the TrainJob, the namespaced runtime (the cluster one: same)
            model = model_for(version, kind)
            assert model is not None
            name = kind.lower()
            schema = model.model_json_schema(by_alias=True)
            schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
            schema["$comment"] = ("Generated from migrator/apimodels.py by "
                                  "scripts/gen_schemas.py; do not edit.")
            out[SCHEMAS / f"{name}-v{version}.schema.json"] = \
                json.dumps(schema, indent=2) + "\n"
    return out


def main() -> int:
    stale = []
    for path, text in generated().items():
        if "--check" in sys.argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
        else:
            path.write_text(text, encoding="utf-8")
            print(path)
    for path in stale:
        print(f"{path} is out of date: run python scripts/gen_schemas.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
