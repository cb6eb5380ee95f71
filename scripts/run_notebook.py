"""Run docs/notebook.ipynb headless and save it with the outputs of that run, so what a
code host shows is what the notebook prints now.

    nice .venv/bin/python scripts/run_notebook.py [--data /work/shared/data]

As ``tests/test_notebook.py`` runs it (nbclient, a kernel of this Python with this
checkout importable, an empty working folder), with ``SENTSPACE_DATA`` at ``--data``
(SICK and STS-B). The notebook's own kernelspec is kept, so the file names no kernel of
this machine. About 70 s on 2 idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
KERNEL = "sentspace-notebook"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data", help="holds sick/, sts/")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "jupyter" / "kernels" / KERNEL
        folder.mkdir(parents=True)
        (folder / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": KERNEL,
                    "language": "python",
                    "env": {
                        "PYTHONPATH": str(ROOT),
                        "SENTSPACE_DATA": str(args.data.resolve()),
                    },
                }
            )
        )
        os.environ["JUPYTER_PATH"] = str(Path(temporary) / "jupyter")
        empty = Path(temporary) / "work"
        empty.mkdir()
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        kernelspec = notebook.metadata.kernelspec
        # No timestamps in the cells' metadata: a rerun changes only what the cells print.
        nbclient.NotebookClient(
            notebook,
            kernel_name=KERNEL,
            timeout=600,
            record_timing=False,
            resources={"metadata": {"path": str(empty)}},
        ).execute()
    notebook.metadata.kernelspec = kernelspec
    nbformat.write(notebook, NOTEBOOK)
    print(f"wrote {NOTEBOOK.relative_to(ROOT)} with the outputs of this run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
