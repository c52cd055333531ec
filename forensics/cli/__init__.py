"""The command-line interface: flags and environment in, one library call, output and exit code out."""
