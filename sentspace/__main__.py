"""``python -m sentspace``: the window, or a command when arguments are given."""

import sys

from sentspace.app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
