"""The schema layer: each kind's problem file declared once, as data.

Its place in the pipeline (parse → mechanisms → derivation → render | check → reports → cli | serve;
docs/contributing.md, "The layers"): the declarations every stage reads (with :mod:`attncalc.kinds`).

``decl`` is the small declaration language (keys, types, shapes, defaults, descriptions, choices);
``common`` holds the keys kinds share; each other module declares a kind or a family of kinds
(``attention``, ``feedforward``, ``recurrent``, ``transformer``, ...), with each kind's step ids
(``STEP_IDS``) and ``attncalc new`` template (``TEMPLATE``) beside its declaration (docs/contributing.md,
"Where a kind's pieces live"); ``catalog`` lists the scores, strategies, masks and measures and orders
step ids; ``validate`` holds the unknown-key
check's suggestions ("did you mean"); ``json_schema`` generates the JSON Schema editors read.
Nothing here imports numpy or sympy.
"""
