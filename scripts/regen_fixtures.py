#!/usr/bin/env python3
"""Regenerate the golden outputs in fixtures/ from the current code; review the git diff."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.goldens import regenerate

if __name__ == "__main__":
    for path in regenerate():
        print(path)
