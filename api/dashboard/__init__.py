"""The dashboard: its pages (HTML, Jinja2) and the admin JSON API under /v1/admin."""
