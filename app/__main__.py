"""``python -m sentspace`` and the ``sentspace`` command.

With no arguments (the usual launch) the window opens straight from
:mod:`sentspace.app.ui.window.startup`, which imports only Qt first; the command line, whose parser needs
the corpora, evaluations and encoders, is imported only for commands.
"""

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        from sentspace.app.ui.window.startup import launch

        return launch()
    from sentspace.app.cli import main as run_command

    return run_command(argv)


# Guarded: helper processes (spawned for UMAP and t-SNE) import this module too.
if __name__ == "__main__":
    sys.exit(main())
