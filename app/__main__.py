import sys

from app.cli import main

# Guarded: helper processes (spawned for UMAP and t-SNE) import this module too.
if __name__ == "__main__":
    sys.exit(main())
