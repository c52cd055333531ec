"""A server that exits with code 3 and says nothing."""

import sys

sys.exit(3)
