"""Run docs/notebook.ipynb headless and save it with the outputs of that run, so what a
code host shows is what the notebook prints now.

    nice .venv/bin/python scripts/run_notebook.py --data /work/shared/data

:func:`run_notebook` is also how ``tests/test_notebook.py`` runs it: nbclient, a kernel
of this Python with this checkout importable, an empty working folder, and
``SENTSPACE_DATA`` at ``--data`` (SICK and STS-B). The notebook's own kernelspec is kept
and no timestamps are recorded, so a rerun changes only what the cells print. About 70 s
on 2 idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
KERNEL = "sentspace-notebook"


def run_notebook(data: Path, scratch: Path):
    """docs/notebook.ipynb executed with ``SENTSPACE_DATA=data``, the kernelspec and the
    working folder written under ``scratch``: the notebook, with its outputs."""
    import nbclient  # noqa: PLC0415 (the notebook extra; a test skips without it)
    import nbformat  # noqa: PLC0415

    folder = scratch / "jupyter" / "kernels" / KERNEL
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": KERNEL,
                "language": "python",
                "env": {
                    "PYTHONPATH": os.pathsep.join(
                        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
                    ),
                    "SENTSPACE_DATA": str(data),
                },
            }
        )
    )
    empty = scratch / "work"
    empty.mkdir()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    before = os.environ.get("JUPYTER_PATH")
    # Where jupyter finds the kernelspec; only this kernel, none of the environment's.
    os.environ["JUPYTER_PATH"] = str(scratch / "jupyter")
    try:
        nbclient.NotebookClient(
            notebook,
            kernel_name=KERNEL,
            timeout=600,
            record_timing=False,
            resources={"metadata": {"path": str(empty)}},
        ).execute()
    finally:
        if before is None:
            del os.environ["JUPYTER_PATH"]
        else:
            os.environ["JUPYTER_PATH"] = before
    return notebook


def main() -> int:
    import nbformat  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data", help="holds sick/, sts/")
    args = parser.parse_args()
    kernelspec = nbformat.read(NOTEBOOK, as_version=4).metadata.kernelspec
    with tempfile.TemporaryDirectory() as scratch:
        notebook = run_notebook(args.data.resolve(), Path(scratch))
    # The notebook's own kernel, not this machine's.
    notebook.metadata.kernelspec = kernelspec
    nbformat.write(notebook, NOTEBOOK)
    print(f"wrote {NOTEBOOK.relative_to(ROOT)} with the outputs of this run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
