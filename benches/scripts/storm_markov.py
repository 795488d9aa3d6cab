#!/usr/bin/env python3
"""Storm's side of the Markov benchmark (stormpy): builds each model from its PRISM
source (all labels and reward models, as `warpcheck explore` builds it) and decomposes
an MDP into maximal end components (stormpy has no BSCC decomposition of chains:
`mec_seconds` is null for them), printing one JSON object per model and run.

Usage: storm_markov.py SOURCE CONSTANTS TYPE [EXTRA_LABELS] [--runs N] [--no-mec]
"""
import json
import sys
import time

import stormpy
import stormpy.analysis

import storm_check  # beside this script: the same model building


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 1
    if "--runs" in sys.argv:
        args.remove(str(runs))
    source, constants, kind = args[0], args[1], args[2]
    extra = args[3] if len(args) > 3 else None
    text = open(source).read()
    if extra:
        text += "\n" + open(extra).read()
    path = "/tmp/storm_markov_source.prism"
    with open(path, "w") as f:
        f.write(text)
    for _ in range(runs):
        _, model, build = storm_check.build(path, constants, kind)
        mecs, mec = None, None
        if kind == "mdp" and "--no-mec" not in sys.argv:
            t0 = time.perf_counter()
            mecs = stormpy.analysis.MaximalEndComponentDecomposition(model).size
            mec = time.perf_counter() - t0
        print(json.dumps({
            "tool": "storm",
            "states": model.nr_states,
            "transitions": model.nr_transitions,
            "choices": model.nr_choices,
            "build_seconds": build,
            "mecs": mecs,
            "mec_seconds": mec,
        }), flush=True)


if __name__ == "__main__":
    main()
