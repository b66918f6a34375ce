"""Writes the API reference of cloud_extraction, generated from its docstrings by pydoc, to sdk/python/docs/.

Usage: python3 sdk/python/scripts/reference.py
"""

from __future__ import annotations

import os
import pydoc
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
MODULES = ["cloud_extraction", "cloud_extraction._sync", "cloud_extraction._async", "cloud_extraction._resources",
           "cloud_extraction._errors", "cloud_extraction.webhooks", "cloud_extraction.models", "cloud_extraction.run_status"]


def main() -> None:
    sys.path.insert(0, str(HERE))
    out = HERE / "docs"
    out.mkdir(exist_ok=True)
    os.chdir(out)
    for name in MODULES:
        pydoc.writedoc(name)
    print(f"wrote {len(MODULES)} pages to {out}")


if __name__ == "__main__":
    main()
