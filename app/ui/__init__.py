"""The Qt layer: renders core results and turns user actions into core calls."""
