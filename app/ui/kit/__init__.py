"""Small Qt parts every layer uses: job workers, widgets, layouts, lazy pages and file
dialogs. Builds on no other part of ``sentspace.app.ui``."""
