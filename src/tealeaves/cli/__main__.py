"""``python -m tealeaves.cli``: the same as the ``tealeaves`` command."""

from tealeaves.cli import main

main()
