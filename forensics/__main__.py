"""`python -m forensics` runs the command-line interface."""

from forensics.cli.main import main

main()
