"""ci-forensics: tells why each test in a failed CI run really failed."""

from forensics.errors import ForensicsError
from forensics.report.build import AnalyzeOptions, analyze
from forensics.rules.loader import load_rules
from forensics.version import __version__

__all__ = ["AnalyzeOptions", "ForensicsError", "__version__", "analyze", "load_rules"]
