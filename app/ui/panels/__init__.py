"""The side panels and dialogs: corpus and encoder choice, projection controls,
evaluations, classification, review, jobs, workspace. Build on ``views``, ``charts``
and ``kit``."""
