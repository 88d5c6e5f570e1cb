"""Renderers: each turns one Derivation into one output format, and none changes it.

Its place in the pipeline (docs/contributing.md, "The layers"):
parse → mechanisms → derivation → **render** | check → reports → cli | serve.
"""
