"""The schema layer: each kind's problem file declared once, as data.

Its place in the pipeline (parse → mechanisms → derivation → render | check → reports → cli | serve;
docs/contributing.md, "The layers"): the declarations every stage reads (with :mod:`attncalc.kinds`).

``decl`` is the small declaration language (keys, types, shapes, defaults, descriptions, choices);
``common``, ``feedforward`` and ``recurrent`` declare the kinds; ``validate`` holds the unknown-key
check's suggestions ("did you mean"); ``json_schema`` generates the JSON Schema editors read.
Nothing here imports numpy or sympy.
"""
