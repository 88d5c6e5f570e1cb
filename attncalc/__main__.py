"""``python -m attncalc`` runs the same CLI as the ``attncalc`` command."""

from .cli import main

main()
