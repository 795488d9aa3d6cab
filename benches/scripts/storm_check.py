#!/usr/bin/env python3
"""Storm's side of the probabilistic-checking benchmark (stormpy): builds a model from
its PRISM source (all labels and reward models) and checks each property with Storm's
default environment and, with --sound, also with its sound one (stormpy.environments.sound();
--sound-unbounded: only for properties without a step, time or steady-state bound, where
the sound mode changes the method),
printing one JSON object per property and method: the value at the first initial state
and the checking time (model building excluded). A run over --timeout seconds is
reported with "seconds": null.

Usage: storm_check.py SOURCE CONSTANTS TYPE [--sound|--sound-unbounded] [--timeout S] PROPERTY...
"""
import json
import multiprocessing as mp
import sys
import time

import stormpy


def build(path, constants, kind):
    t0 = time.perf_counter()
    prog = stormpy.parse_prism_program(path, prism_compatibility=(kind == "ctmc"))
    if constants:
        prog, _ = stormpy.instantiate_constants(prog, constants)
    opts = stormpy.BuilderOptions()
    opts.set_build_all_labels()
    opts.set_build_all_reward_models()
    model = stormpy.build_model(prog, options=opts)
    return prog, model, time.perf_counter() - t0


def check(model, prog, formula, method, queue):
    env = stormpy.Environment() if method == "default" else stormpy.environments.sound()
    prop = stormpy.parse_properties(formula, prog)[0]
    t0 = time.perf_counter()
    res = stormpy.model_checking(model, prop, environment=env)
    seconds = time.perf_counter() - t0
    queue.put((seconds, float(res.get_value(model.initial_states[0]))))


def main():
    args = sys.argv[1:]
    sound = "--sound" in args
    unbounded_only = "--sound-unbounded" in args
    timeout = 600.0
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i : i + 2]
    args = [a for a in args if a not in ("--sound", "--sound-unbounded")]
    source, constants, kind, props = args[0], args[1], args[2], args[3:]
    prog, model, build_seconds = build(source, constants, kind)
    print(json.dumps({"tool": "storm", "build_seconds": build_seconds, "states": model.nr_states,
                      "transitions": model.nr_transitions, "choices": model.nr_choices}), flush=True)
    ctx = mp.get_context("fork")
    for formula in props:
        bounded = "<=" in formula or "[S" in formula.replace(" ", "") or "I=" in formula or formula.startswith("S")
        both = sound or (unbounded_only and not bounded)
        for method in ["default", "sound"] if both else ["default"]:
            queue = ctx.Queue()
            child = ctx.Process(target=check, args=(model, prog, formula, method, queue))
            child.start()
            child.join(timeout)
            if child.is_alive():
                child.kill()
                child.join()
                seconds, value = None, None
            else:
                seconds, value = queue.get() if not queue.empty() else (None, None)
            print(json.dumps({"tool": "storm", "property": formula, "method": method, "seconds": seconds,
                              "value": value}), flush=True)


if __name__ == "__main__":
    main()
