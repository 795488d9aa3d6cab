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
Usage: benches/scripts/gpu-reference-sweep.py BIN BEEM_DIR BUDGET_SECONDS"""
import csv
import json
import os
import subprocess
import sys
import time

B, M, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
start = time.time()


def path(name):
    return os.path.join(M, name.split('.')[0], name + '.dve')


def run(args):
    p = subprocess.run([B] + args + ['--backend', 'gpu', '--json', '-q'], capture_output=True, text=True, timeout=60)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {'error': f'exit {p.returncode}: {p.stderr[-200:]}'}


ref = list(csv.DictReader(open(os.path.join(M, 'reference.csv'))))
sizes = {r['instance']: int(r['states']) for r in ref}
parts = os.environ.get('PARTS', 'explore ltl').split()
explore_until = budget * (0.55 if 'ltl' in parts else 1.0)
ok = bad = late = 0
for r in ref if 'explore' in parts else []:
    if int(r['states']) > 5_000_000:
        continue
    if time.time() - start > explore_until:
        late += 1
        continue
    wrap = ['--overflow', 'wrap'] if r['source'].startswith('ltsmin') else []
    store = ['--gpu-store', os.environ['STORE']] if os.environ.get('STORE') else []
    d = run(['explore', path(r['instance'])] + wrap + store)
    got = (d['states'], d['transitions'], d['deadlocks']) if 'states' in d else d
    want = (int(r['states']), int(r['transitions']), int(r['deadlocks']) if r['deadlocks'] else d.get('deadlocks'))
    ok, bad = (ok + 1, bad) if got == want else (ok, bad + 1)
    if got != want:
        print('COUNT MISMATCH', r['instance'], got, want, flush=True)
    if (ok + bad) % 25 == 0:
        print(f'explore so far: {ok} exact, {bad} not, {time.time() - start:.0f} s', flush=True)
if 'explore' in parts:
    print(f'explore: {ok} exact, {bad} not, {late} left out, {time.time() - start:.0f} s', flush=True)
ok = bad = late = 0
for r in csv.DictReader(open(os.path.join(M, 'ltl-reference.csv'))) if 'ltl' in parts else []:
    if sizes.get(r['property_file'].rsplit('.', 1)[0], 10**12) > 1_000_000:
        continue
    if time.time() - start > budget:
        late += 1
        continue
    got = run(['check', path(r['property_file'])]).get('verdict', 'no verdict')
    want = {'no': 'violated', 'yes': 'holds'}.get(r['reference_answer'], r['reference_answer'])
    ok, bad = (ok + 1, bad) if got == want else (ok, bad + 1)
    if got != want:
        print('VERDICT MISMATCH', r['property_file'], got, want, flush=True)
if 'ltl' in parts:
    print(f'ltl: {ok} as the reference, {bad} not, {late} left out, {time.time() - start:.0f} s', flush=True)
