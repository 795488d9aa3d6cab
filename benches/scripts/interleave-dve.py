#!/usr/bin/env python3
"""Writes the interleaving of two DVE models (`system async;` both): each one's global
variables, channels and processes renamed with a prefix (a_ and b_), the two bodies
side by side, one `system async;`. The product's counts follow from the parts':
states nA * nB, transitions tA * nB + nA * tB, deadlocks dA * dB; so two BEEM instances
with DiVinE's counts give a large state space with an exact reference.
Usage: benches/scripts/interleave-dve.py A.dve B.dve > A_B.dve"""
import re
import sys

TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|[A-Za-z_][A-Za-z_0-9]*|\S', re.S)
TYPES = {'byte', 'int'}


def top_level_names(text):
    """Global variables, channels and processes (depth 0), and the variables declared
    inside processes (to refuse a local that shadows a global)."""
    tokens = [t for t in TOKEN.findall(text) if not t.startswith('/')]
    names, local, depth, i = [], set(), 0, 0
    while i < len(tokens):
        t = tokens[i]
        if t == '{':
            depth += 1
        elif t == '}':
            depth -= 1
        elif t == 'process' and depth == 0:
            names.append(tokens[i + 1])
        elif t in TYPES or t == 'channel':
            # A declaration: names are the identifiers that follow the type (or the
            # channel's element types in braces) or a comma, up to the semicolon.
            j, inner = i + 1, 0
            expect = True
            while tokens[j] != ';':
                u = tokens[j]
                if u in '{[(':
                    inner += 1
                elif u in '}])':
                    inner -= 1
                elif inner == 0 and u == ',':
                    expect = True
                elif inner == 0 and expect and re.match(r'[A-Za-z_]', u) and u not in TYPES:
                    (names.append(u) if depth == 0 else local.add(u))
                    expect = False
                elif inner == 0 and u == '=':
                    expect = False
                j += 1
            i = j
        elif t == 'system':
            while tokens[i] != ';':
                i += 1
        i += 1
    return names, local


def renamed(text, prefix):
    names, local = top_level_names(text)
    clash = sorted(set(names) & local)
    if clash:
        sys.exit(f'a local variable shadows a global name: {", ".join(clash)}')
    body = re.sub(r'\bsystem\s+async\s*;', '', text)
    if re.search(r'\bsystem\b', body):
        sys.exit('only `system async;` models (no property, no sync) can be interleaved')
    pattern = re.compile(r'\b(' + '|'.join(map(re.escape, names)) + r')\b')
    return pattern.sub(lambda m: prefix + m.group(1), body)


a, b = (open(p).read() for p in sys.argv[1:3])
print(f'// The interleaving of {sys.argv[1].split("/")[-1]} (a_) and {sys.argv[2].split("/")[-1]} (b_),')
print('// written by benches/scripts/interleave-dve.py.')
# DVE declares all global variables and channels before the first process.
parts = [re.split(r'(?m)^(?=\s*process\b)', renamed(text, prefix), maxsplit=1) for text, prefix in ((a, 'a_'), (b, 'b_'))]
if any(len(p) != 2 for p in parts):
    sys.exit('a model without a process')
print('\n'.join(p[0].strip() for p in parts) + '\n\n' + '\n\n'.join(p[1].strip() for p in parts) + '\n\nsystem async;')
