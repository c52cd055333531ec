"""Deterministic extra rules in the shipped TOML format, for timing the engine against rule count.

Each rule has its own literal anchor (an exception class, words and a number no other rule shares), one
example and one near miss, and passes `ci-forensics rules test`. Four shapes rotate: an exception with two
captures, a status line, a case-insensitive rule, and a rule with two patterns.

Usage: python benchmarks/synthetic_rules.py DIR [--count 436]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

ADJECTIVES = [
    "amber",
    "azure",
    "brittle",
    "cobalt",
    "crimson",
    "dusty",
    "eager",
    "frozen",
    "gilded",
    "hollow",
    "ivory",
    "jagged",
    "keen",
    "lunar",
    "mellow",
    "nimble",
    "opal",
    "pale",
    "quiet",
    "rusty",
    "silent",
    "tawny",
    "umber",
    "velvet",
    "woven",
    "young",
    "zesty",
    "bronze",
    "coral",
    "dappled",
]
NOUNS = [
    "lattice",
    "spindle",
    "widget",
    "ferry",
    "beacon",
    "conduit",
    "harbor",
    "turbine",
    "lantern",
    "anvil",
    "quiver",
    "ratchet",
    "sprocket",
    "gasket",
    "piston",
    "valve",
    "bobbin",
    "trellis",
    "pulley",
    "hinge",
    "gimbal",
    "capstan",
    "winch",
    "rudder",
    "keel",
    "mast",
    "tiller",
    "sextant",
]
CLASS_WORDS = [
    "Cobalt",
    "Ferry",
    "Quartz",
    "Nimbus",
    "Harbor",
    "Vector",
    "Lumen",
    "Falcon",
    "Orbit",
    "Tundra",
    "Mosaic",
    "Cinder",
    "Prism",
    "Delta",
    "Willow",
    "Garnet",
    "Summit",
    "Raven",
    "Sable",
    "Onyx",
    "Meadow",
    "Comet",
    "Ember",
    "Glacier",
    "Jasper",
    "Kestrel",
    "Lotus",
    "Marble",
    "Nova",
    "Pebble",
]


def rule_toml(number: int, rng: random.Random) -> str:
    """One synthetic rule as a TOML document (shape chosen by `number`)."""
    adjective = rng.choice(ADJECTIVES)
    noun = rng.choice(NOUNS)
    class_name = f"{rng.choice(CLASS_WORDS)}{rng.choice(CLASS_WORDS)}"
    tag = f"{number:04d}"
    shape = number % 4
    ignore_case = "false"
    fields = ""
    if shape == 0:
        patterns = [
            rf"{class_name}Error: {adjective} {noun} {tag} could not (?P<action>\w+) after (?P<attempts>\d+) attempts"
        ]
        summary = f"The {adjective} {noun} {tag} could not {{action}} after {{attempts}} attempts."
        example = f"ERROR 11-28 08:14:19 [core.py:708] {class_name}Error: {adjective} {noun} {tag} could not settle "
        example += "after 3 attempts"
        fields = 'fields = { action = "settle", attempts = 3 }\n'
        near_miss = f"INFO 11-28 08:14:19 [core.py:708] {adjective} {noun} {tag} settled after 3 attempts"
    elif shape == 1:
        patterns = [
            rf"{adjective} {noun} {tag} reported status (?P<status>[A-Z_]{{3,20}}) on (?P<device>cuda:\d+)"
        ]
        summary = f"The {adjective} {noun} {tag} reported {{status}} on {{device}}."
        example = f"[rank0]: {adjective} {noun} {tag} reported status WEDGED on cuda:1"
        fields = 'fields = { status = "WEDGED", device = "cuda:1" }\n'
        near_miss = f"[rank0]: {adjective} {noun} {tag} reported status ok on cuda:1"
    elif shape == 2:
        ignore_case = "true"
        patterns = [rf"failed to (?:open|bind|map) {noun} segment {tag}: (?P<reason>[^\n]{{1,100}})"]
        summary = f"Could not use {noun} segment {tag}: {{reason}}."
        example = f"Error: FAILED TO MAP {noun.upper()} SEGMENT {tag}: permission denied"
        near_miss = f"mapped {noun} segment {tag} after 2 retries"
    else:
        patterns = [
            rf"{class_name}Exception: {noun}-{tag} timed out after (?P<seconds>\d+(?:\.\d+)?)s",
            rf"{adjective} {noun}-{tag} watchdog fired",
        ]
        summary = f"The {noun}-{tag} step timed out after {{seconds|an unknown number of}} seconds."
        example = f"{class_name}Exception: {noun}-{tag} timed out after 12.5s"
        fields = "fields = { seconds = 12.5 }\n"
        near_miss = f"{noun}-{tag} finished in 12.5s; watchdog idle"
    pattern_lines = "".join(f"  '''{pattern}''',\n" for pattern in patterns)
    return (
        f"# Synthetic rule {tag} for the rule-count benchmark (benchmarks/synthetic_rules.py).\n"
        "[[rule]]\n"
        f'id = "synthetic.rule-{tag}"\n'
        f'title = "Synthetic failure {tag}: the {adjective} {noun} broke"\n'
        'category = "product"\n'
        'kind = "cause"\n'
        f"priority = {30 + number % 40}\n"
        'tags = ["synthetic"]\n'
        f"ignore_case = {ignore_case}\n"
        f"patterns = [\n{pattern_lines}]\n"
        f'summary = "{summary}"\n'
        'advice = "A synthetic rule for the benchmark: nothing to do."\n'
        "\n[[rule.examples]]\n"
        'source = "synthetic: benchmark rule"\n'
        f"text = '''\n{example}\n'''\n"
        f"{fields}"
        "\n[[rule.near_misses]]\n"
        'source = "synthetic: the same words without the failure"\n'
        f"text = '''\n{near_miss}\n'''\n"
    )


def write_rules(folder: Path, count: int, seed: int = 4242) -> list[Path]:
    """Write `count` synthetic rule files into `folder`, one rule per file."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    paths = []
    for number in range(count):
        path = folder / f"synthetic-{number:04d}.toml"
        path.write_text(rule_toml(number, rng), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    """Write the synthetic rules into a folder."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--count", type=int, default=436)
    options = parser.parse_args()
    paths = write_rules(options.folder, options.count)
    print(f"wrote {len(paths)} rules to {options.folder}")


if __name__ == "__main__":
    main()
