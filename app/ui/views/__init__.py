"""The centre's views: the projection, Costra orderings, Compare, the corpus table, the
neighbours, Explain and the Inspector. Each draws what it is given; builds on
``charts`` and ``kit`` only."""
