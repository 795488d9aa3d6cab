#!/usr/bin/env python3
"""The GPU engine against BEEM's references, within a time budget: every instance of
reference.csv up to 5 M states (`explore --backend gpu`, with `--overflow wrap` for the
rows LTSmin computed; states, transitions, deadlocks), for at most 55% of the budget,
then every property file of ltl-reference.csv whose instance has at most 1 M states
(`check --backend gpu`, OWCTY; the verdict). Prints each mismatch and the totals.
With STORE=flat|compressed|auto in the environment, every `explore` uses that
`--gpu-store` (the LTL checks record the product graph in the flat store); with
PARTS=explore or PARTS=ltl only that part runs, with the whole budget. A line of
running totals every 25 instances, and the instances left out for lack of time.
With JOBS=N (default 1), N runs share the GPU at a time, each with `--memory
JOB_MEMORY` (default 4G): the models' compilations then overlap on the host's cores.
MIN_STATES and MAX_STATES (default 5000000) bound the instances explored.
Usage: benches/scripts/gpu-reference-sweep.py BIN BEEM_DIR BUDGET_SECONDS"""
import csv
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

B, M, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
jobs = int(os.environ.get('JOBS', '1'))
memory = ['--memory', os.environ.get('JOB_MEMORY', '4G')] if jobs > 1 else []
start = time.time()


def path(name):
    return os.path.join(M, name.split('.')[0], name + '.dve')


def run(args):
    try:
        p = subprocess.run([B] + args + memory + ['--backend', 'gpu', '--json', '-q'],
                           capture_output=True, text=True, timeout=60)
        return json.loads(p.stdout)
    except subprocess.TimeoutExpired:
        return {'error': 'over 60 s'}
    except ValueError:
        return {'error': f'exit {p.returncode}: {p.stderr[-200:]}'}


def sweep(name, cases, until, mismatch):
    """Runs `cases` (label, arguments, judge) until `until` seconds into the run;
    `judge(result)` returns (got, want). Prints each mismatch and the totals."""
    ok = bad = late = 0

    def one(case):
        if time.time() - start > until:
            return None
        label, args, judge = case
        return label, judge(run(args))

    with ThreadPoolExecutor(jobs) as pool:
        for outcome in pool.map(one, cases):
            if outcome is None:
                late += 1
                continue
            label, (got, want) = outcome
            ok, bad = (ok + 1, bad) if got == want else (ok, bad + 1)
            if got != want:
                print(mismatch, label, got, want, flush=True)
            if (ok + bad) % 25 == 0:
                print(f'{name} so far: {ok} exact, {bad} not, {time.time() - start:.0f} s', flush=True)
    return ok, bad, late


ref = list(csv.DictReader(open(os.path.join(M, 'reference.csv'))))
sizes = {r['instance']: int(r['states']) for r in ref}
parts = os.environ.get('PARTS', 'explore ltl').split()
store = ['--gpu-store', os.environ['STORE']] if os.environ.get('STORE') else []


def counts(r):
    def judge(d):
        got = (d['states'], d['transitions'], d['deadlocks']) if 'states' in d else d
        deadlocks = int(r['deadlocks']) if r['deadlocks'] else d.get('deadlocks')
        return got, (int(r['states']), int(r['transitions']), deadlocks)
    wrap = ['--overflow', 'wrap'] if r['source'].startswith('ltsmin') else []
    return r['instance'], ['explore', path(r['instance'])] + wrap + store, judge


def verdict(r):
    want = {'no': 'violated', 'yes': 'holds'}.get(r['reference_answer'], r['reference_answer'])
    return r['property_file'], ['check', path(r['property_file'])], lambda d: (d.get('verdict', d), want)


if 'explore' in parts:
    low, high = int(os.environ.get('MIN_STATES', '0')), int(os.environ.get('MAX_STATES', '5000000'))
    cases = [counts(r) for r in ref if low <= int(r['states']) <= high]
    ok, bad, late = sweep('explore', cases, budget * (0.55 if 'ltl' in parts else 1.0), 'COUNT MISMATCH')
    print(f'explore: {ok} exact, {bad} not, {late} left out, {time.time() - start:.0f} s', flush=True)
if 'ltl' in parts:
    rows = csv.DictReader(open(os.path.join(M, 'ltl-reference.csv')))
    cases = [verdict(r) for r in rows if sizes.get(r['property_file'].rsplit('.', 1)[0], 10**12) <= 1_000_000]
    ok, bad, late = sweep('ltl', cases, budget, 'VERDICT MISMATCH')
    print(f'ltl: {ok} as the reference, {bad} not, {late} left out, {time.time() - start:.0f} s', flush=True)
