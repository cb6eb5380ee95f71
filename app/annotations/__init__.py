"""Checking annotations: find suspicious ones (:mod:`.suspicious`), correct them as
journaled edits (:mod:`.edits`, :mod:`.journal`, :mod:`.session`) and export the
corrected corpus with its change log (:mod:`.export`). Qt-free."""
