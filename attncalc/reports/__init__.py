"""What ``attncalc check`` and the LMS exports write: check reports as text and JSON, gradebook CSV,
QTI 2.1 and 1.2 packages, Moodle XML, and the registered views (``to_markdown()`` and friends).

Its place in the pipeline (docs/contributing.md, "The layers"):
parse → mechanisms → derivation → render | check → **reports** → cli | serve.

This layer sits above :mod:`attncalc.check` and :mod:`attncalc.render`: it reads check reports and
re-solves problems, which the renderers below never do.
"""
