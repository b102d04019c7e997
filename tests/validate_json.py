#!/usr/bin/python3
"""Validates a JSON document against a JSON Schema (any draft jsonschema knows).

usage: validate_json.py SCHEMA DOCUMENT
Prints one line per error (at most 20) and exits 1 if the document is invalid, 2 on bad input.
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        document = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors[:20]:
        where = "/".join(map(str, error.absolute_path)) or "(root)"
        print(f"{where}: {error.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
