// The MEC decomposition on a CUDA GPU (see mec.rs): the kernels of its rounds. This
// file follows sweeps.cu in one module and uses its `mk_u64`, `MK_FOR`, `MK_RAISE`,
// `MK_DEVICE` and `MK_KERNEL`.
//
// Every state carries the label of its candidate (`ME_REMOVED`: in no MEC) and every
// row a live flag (the choice stays inside its state's candidate). A label without
// the top bit `ME_REST` names a candidate found strongly connected (an SCC along the
// live rows, named by one of its states); one with it, the rest of a search, still to
// be decomposed.
//
//   me_disable   run until nothing changes: a live row with a target in another
//                candidate is disabled; a state left without a live row is removed,
//                which may disable rows of its predecessors (the attractor). An SCC
//                candidate that loses a row or a state is marked `dirty`.
//   first round  (one candidate, everything): forward-backward from the pivot.
//                me_fb_start, me_colour (with the pivot alone coloured 1: forward
//                reach along live rows), then me_mark from the pivot backwards over
//                the predecessor lists; me_fb_split: the pivot's SCC (forward and
//                backward) is labelled by the pivot, the rest pivot | ME_REST.
//   later rounds colouring of the candidates that need it (ME_REST or dirty; the
//                others keep their label as colour and are marked): me_start, then
//                me_colour (colour = the largest state reaching the state along live
//                rows, pushed forward with atomicMax from the states whose colour
//                rose last); me_root (states whose colour is their own number) and
//                me_mark (backwards from the roots, the same colour): the roots'
//                SCCs; me_relabel: a marked state takes its colour as label, the
//                others colour | ME_REST.
// Labels are states of the candidate (candidates are disjoint, states < 2^31), so they
// never collide. The host stops when a round's me_disable changed nothing and no label
// has ME_REST: every candidate is then strongly connected along its live rows, whose
// targets lie in it, and every state has one.
//
// The predecessor lists (every entry of the model backwards: its source and its row)
// are built once, by me_indegree, a prefix sum on the host and me_scatter.
//
// Launches to a fixpoint come in batches as in sweeps.cu: launch `slot` raises
// `flags[slot]` when it changed something and, with `guard`, returns at once when
// `flags[slot - 1]` is clear.

#define ME_REMOVED 0xFFFFFFFFu
#define ME_REST 0x80000000u

#if defined(__CUDACC__)
#define ME_MAX(p, v) atomicMax((unsigned *)(p), (v))
#define ME_ADD(p, v) atomicAdd((p), (v))
#define ME_FENCE() __threadfence()
#endif

typedef struct {
  const mk_u64 *groups;        // n + 1 offsets into the rows
  const mk_u64 *starts;        // rows + 1 offsets into the columns
  const unsigned *columns;
  volatile unsigned *label;    // per state
  volatile unsigned *colour;   // per state
  volatile unsigned char *active;  // per state: colour rose, push it on
  volatile unsigned char *mark;    // per state: reaches its colour's root
  volatile unsigned char *live;    // per row
  const mk_u64 *poffs;         // n + 1 offsets into psrc / prow
  unsigned *psrc;              // per entry, backwards: the source state
  unsigned *prow;              // per entry, backwards: the row
  unsigned *cursor;            // per state: entries counted or placed
  volatile unsigned char *dirty;   // per SCC label: lost a row or a state
  unsigned *flags;             // per launch of a batch: something changed
  mk_u64 n;                    // states
  mk_u64 pivot;                // the first round's pivot
  unsigned slot;
  unsigned guard;
} MeArgs;

MK_DEVICE int me_skip(const MeArgs *a) { return a->guard && a->slot > 0 && a->flags[a->slot - 1] == 0; }

// Whether the candidate of label `l` (not removed) is an SCC untouched since found.
MK_DEVICE int me_clean(const MeArgs *a, unsigned l) { return !(l & ME_REST) && !a->dirty[l]; }

// Disables live rows leaving the state's candidate; removes states left without one.
MK_KERNEL me_disable(MeArgs a) {
  if (me_skip(&a)) return;
  int changed = 0;
  MK_FOR(s, a.n) {
    unsigned l = a.label[s];
    if (l == ME_REMOVED) continue;
    mk_u64 left = 0;
    for (mk_u64 r = a.groups[s]; r < a.groups[s + 1]; r++) {
      if (!a.live[r]) continue;
      int out = 0;
      for (mk_u64 e = a.starts[r]; e < a.starts[r + 1] && !out; e++) out = a.label[a.columns[e]] != l;
      if (out) {
        a.live[r] = 0;
        changed = 1;
        if (!(l & ME_REST)) a.dirty[l] = 1;
      } else {
        left++;
      }
    }
    if (left == 0) {
      a.label[s] = ME_REMOVED;
      changed = 1;
      if (!(l & ME_REST)) a.dirty[l] = 1;
    }
  }
  MK_RAISE(&a.flags[a.slot], changed);
}

// Colours: a clean candidate's states its label, inactive; the others their own
// number, active.
MK_KERNEL me_start(MeArgs a) {
  MK_FOR(s, a.n) {
    unsigned l = a.label[s];
    int clean = l == ME_REMOVED || me_clean(&a, l);
    a.colour[s] = clean ? l : (unsigned)s;
    a.active[s] = !clean;
  }
}

// Forward-backward: the pivot coloured 1 and active, every other state 0, so that
// me_colour pushes 1 exactly to the states the pivot reaches.
MK_KERNEL me_fb_start(MeArgs a) {
  MK_FOR(s, a.n) {
    a.colour[s] = s == a.pivot;
    a.active[s] = s == a.pivot;
    a.mark[s] = 0;
  }
}

// The pivot's SCC (marked) takes its label, the rest of the candidate pivot | ME_REST;
// raises the flag when some state is in the rest. Clears the dirty marks.
MK_KERNEL me_fb_split(MeArgs a) {
  int rest = 0;
  MK_FOR(s, a.n) {
    a.dirty[s] = 0;
    if (a.label[s] == ME_REMOVED) continue;
    a.label[s] = a.mark[s] ? (unsigned)a.pivot : (unsigned)a.pivot | ME_REST;
    rest |= !a.mark[s];
  }
  MK_RAISE(&a.flags[a.slot], rest);
}

// Pushes the colour of each active state to the targets of its live rows.
MK_KERNEL me_colour(MeArgs a) {
  if (me_skip(&a)) return;
  int changed = 0;
  MK_FOR(s, a.n) {
    if (!a.active[s]) continue;
    a.active[s] = 0;
    ME_FENCE();
    unsigned c = a.colour[s];
    for (mk_u64 r = a.groups[s]; r < a.groups[s + 1]; r++) {
      if (!a.live[r]) continue;
      for (mk_u64 e = a.starts[r]; e < a.starts[r + 1]; e++) {
        unsigned t = a.columns[e];
        if (a.colour[t] < c && ME_MAX(&a.colour[t], c) < c) {
          ME_FENCE();
          a.active[t] = 1;
          changed = 1;
        }
      }
    }
  }
  MK_RAISE(&a.flags[a.slot], changed);
}

// Counts each state's entries backwards (cursor zeroed before).
MK_KERNEL me_indegree(MeArgs a) {
  MK_FOR(s, a.n) {
    for (mk_u64 e = a.starts[a.groups[s]]; e < a.starts[a.groups[s + 1]]; e++) ME_ADD(&a.cursor[a.columns[e]], 1u);
  }
}

// Places each entry in its target's predecessor list (cursor zeroed before).
MK_KERNEL me_scatter(MeArgs a) {
  MK_FOR(s, a.n) {
    for (mk_u64 r = a.groups[s]; r < a.groups[s + 1]; r++) {
      for (mk_u64 e = a.starts[r]; e < a.starts[r + 1]; e++) {
        unsigned t = a.columns[e];
        mk_u64 k = a.poffs[t] + ME_ADD(&a.cursor[t], 1u);
        a.psrc[k] = (unsigned)s;
        a.prow[k] = (unsigned)r;
      }
    }
  }
}

// The roots, states whose colour is their own number, marked and active; the states
// of clean candidates marked, inactive.
MK_KERNEL me_root(MeArgs a) {
  MK_FOR(s, a.n) {
    unsigned l = a.label[s];
    int root = l != ME_REMOVED && !me_clean(&a, l) && a.colour[s] == (unsigned)s;
    a.mark[s] = root || (l != ME_REMOVED && me_clean(&a, l));
    a.active[s] = root;
  }
}

// Marks the predecessors of the states marked last, over live rows, of the same colour.
MK_KERNEL me_mark(MeArgs a) {
  if (me_skip(&a)) return;
  int changed = 0;
  MK_FOR(t, a.n) {
    if (!a.active[t]) continue;
    a.active[t] = 0;
    unsigned c = a.colour[t];
    for (mk_u64 k = a.poffs[t]; k < a.poffs[t + 1]; k++) {
      unsigned s = a.psrc[k];
      if (!a.mark[s] && a.live[a.prow[k]] && a.colour[s] == c) {
        a.mark[s] = 1;
        ME_FENCE();
        a.active[s] = 1;
        changed = 1;
      }
    }
  }
  MK_RAISE(&a.flags[a.slot], changed);
}

// New labels: the root's SCC, or the rest of its colour; raises the flag when some
// state is in a rest. Clears the dirty marks for the next round.
MK_KERNEL me_relabel(MeArgs a) {
  int rest = 0;
  MK_FOR(s, a.n) {
    a.dirty[s] = 0;
    if (a.label[s] == ME_REMOVED) continue;
    a.label[s] = a.mark[s] ? a.colour[s] : a.colour[s] | ME_REST;
    rest |= !a.mark[s];
  }
  MK_RAISE(&a.flags[a.slot], rest);
}
