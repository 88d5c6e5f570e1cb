"""The homework drawers of ``attncalc generate``, one module per family of kinds.

Its place in the pipeline (parse → mechanisms → derivation → render | check → reports → cli | serve;
docs/contributing.md, "The layers"): draws seeded problems and runs them through every stage (the ``generate`` command).

Each kind's entry in :mod:`attncalc.kinds` names a :class:`~attncalc.homework.base.Drawer`: how it
checks the options that concern it, draws one random problem table from the one seeded generator,
and says why a drawn variant is unfit for a worksheet (:mod:`attncalc.homework.guards` holds the
checks the families share). :mod:`attncalc.homework.generate` runs the drawing loop and writes the files.
"""
