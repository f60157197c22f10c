#!/usr/bin/env python3
"""Prints `stowplan macs --json`'s ops as bench/run.sh's `model_op` lines: subgraph, index,
opcode, MACs, kernel (`name/epilogue`) and expected instructions, each "-" where the op has
none. Usage: python3 bench/macs_ops.py MACS.json"""

import json
import sys


def dash(value):
    return "-" if value is None else value


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    for op in report["ops"]:
        kernel = op["kernel"]
        if kernel is not None and op["epilogue"] is not None:
            kernel = f"{kernel}/{op['epilogue']}"
        print(
            "model_op",
            op["subgraph"],
            op["index"],
            op["opcode"],
            dash(op["macs"]),
            dash(kernel),
            dash(op["expected_instructions"]),
        )


if __name__ == "__main__":
    main()
