"""What ``attncalc check`` and the LMS exports write: check reports as text and JSON, gradebook CSV,
QTI 2.1 and 1.2 packages, Moodle XML, and the registered views (``to_markdown()`` and friends).

This layer sits above :mod:`attncalc.check` and :mod:`attncalc.render`: it reads check reports and
re-solves problems, which the renderers below never do.
"""
