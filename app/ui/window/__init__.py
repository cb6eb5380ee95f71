"""The window's controllers and their assembly: each owns one concern (corpora shown,
selection, jobs, analyses, files, docks, menus) and wires views and panels to the
session. Builds on every other layer; nothing builds on it."""
