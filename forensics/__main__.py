"""`python -m forensics` runs the command-line interface."""

from forensics.cli.start import main

main()
