"""Renderers: each turns one Derivation into one output format, and none changes it."""
