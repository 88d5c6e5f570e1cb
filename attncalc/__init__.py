"""attncalc: worked derivations of attention mechanisms, exact and numeric.

Importing the package is cheap; the heavy parts (numpy, sympy, rich) load on first use.
"""

__version__ = "0.1.0"
