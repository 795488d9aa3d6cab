// The successor function of a grounded planning task (warpcheck_pddl::model), one
// body for every task: the actions are read from the table `wc_plan` (see table.rs).
//
// wc_plan: [0] actions, [1] facts, [2] offset of the goal's condition, [3] offset of
// the index, then the blocks. The index: the key facts (a mask of WC_WORDS words, the
// facts that key an action), then for each fact f the actions keyed on f, one of their
// positive preconditions (`start[f]..start[f + 1]` into the list after the starts;
// search.rs chooses the key), then the actions without positive precondition ([count,
// actions...]).
// Action a's block starts at wc_plan[4 + a]: its precondition, its adds, its
// deletes, its conditional effects ([count, then each: condition, adds, deletes,
// numeric effects]), its numeric effects ([count, then each: state word, operation
// (0 assign, 1 increase, 2 decrease, 3 scale-up), expression]).
// A condition: [length, positive pairs: count, (word, mask)..., negative pairs: count,
// (word, mask)..., rest: count, postfix code...]; a pair list [count, (word, mask)...].
// Postfix code: bits 31..30 the kind (0 fact, 1 negated fact, 2 all of the last n,
// 3 any of the last n), bits 29..0 the fact or n; kind 2 with bit 29 set is a numeric
// comparison (bits 2..0: 0 <, 1 <=, 2 =, 3 >=, 4 >), its two expressions after it.
// WC_PLAN_STACK bounds the stack of truth values.
// An expression: [length, tokens...] in postfix order, bits 31..29 of a token: 0 the
// fluent in state word (bits 28..0, a 32-bit signed integer), 1 a constant (the two
// words after it, low first, a 64-bit signed integer), 2 +, 3 -, 4 *, 5 negation;
// WC_PLAN_VALUES bounds its stack. The grounder bounds every expression's magnitude
// with its fluents anywhere in the 32-bit range below 2^63: no operation overflows.
// Numeric effects apply one after another (those of the conditional effects that fire
// first), each to the value the ones before left, each amount read in the state before
// the step; a result that leaves the 32-bit range is an error (WC_PLAN_RANGE).
// An includer that needs the action of each successor (the GPU's uniform-cost search,
// search/gpu/ucs.cu) defines WC_PLAN_EMIT(k, a, t), called instead of wc_emit, and
// WC_PLAN_RANGE(k, a), called instead of wc_emit_error for a value out of range.

WC_TABLE(wc_plan)

#if defined(__CUDA_ARCH__)
#define WC_PLAN_CTZ(x) ((u32)(__ffs(x) - 1))
#else
#define WC_PLAN_CTZ(x) ((u32)__builtin_ctz(x))
#endif

// Word `w` of a state array, and its update. With WC_PLAN_SELECT (defined by the
// includer) a read is a select over every word and an update touches every word, so
// that the arrays stay in registers (an index the compiler cannot resolve moves an array
// to local memory); otherwise plain indexing.
#ifdef WC_PLAN_SELECT
WC_FN u32 wc_plan_word(const u32 *a, u32 w) {
  u32 v = 0;
#pragma unroll
  for (int i = 0; i < WC_WORDS; i++) v = (u32)i == w ? a[i] : v;
  return v;
}
WC_FN void wc_plan_update(u32 *a, u32 w, u32 m, int set) {
#pragma unroll
  for (int i = 0; i < WC_WORDS; i++) {
    u32 x = set ? (a[i] | m) : (a[i] & ~m);
    a[i] = (u32)i == w ? x : a[i];
  }
}
#else
WC_FN u32 wc_plan_word(const u32 *a, u32 w) { return a[w]; }
WC_FN void wc_plan_update(u32 *a, u32 w, u32 m, int set) { a[w] = set ? (a[w] | m) : (a[w] & ~m); }
#endif

// Word `w` of `a` set to `v`.
WC_FN void wc_plan_assign(u32 *a, u32 w, u32 v) {
  wc_plan_update(a, w, 0xFFFFFFFFu, 0);
  wc_plan_update(a, w, v, 1);
}

// The value of expression `e` in `s`.
WC_FN long long wc_plan_eval(const u32 *e, const u32 *s) {
  long long stack[WC_PLAN_VALUES];
  int top = 0;
  u32 n = e[0];
  for (u32 i = 1; i <= n; i++) {
    u32 op = e[i] >> 29;
    if (op == 0) {
      stack[top++] = (long long)(int)wc_plan_word(s, e[i] & 0x1FFFFFFFu);
    } else if (op == 1) {
      stack[top++] = (long long)((u64)e[i + 1] | ((u64)e[i + 2] << 32));
      i += 2;
    } else if (op == 5) {
      stack[top - 1] = -stack[top - 1];
    } else {
      long long b = stack[--top];
      stack[top - 1] = op == 2 ? stack[top - 1] + b : op == 3 ? stack[top - 1] - b : stack[top - 1] * b;
    }
  }
  return stack[0];
}

WC_FN int wc_plan_holds(const u32 *c, const u32 *s) {
  const u32 *p = c + 1;
  u32 n = *p++;
  for (u32 i = 0; i < n; i++, p += 2)
    if ((wc_plan_word(s, p[0]) & p[1]) != p[1]) return 0;
  n = *p++;
  for (u32 i = 0; i < n; i++, p += 2)
    if (wc_plan_word(s, p[0]) & p[1]) return 0;
  n = *p++;
  if (n == 0) return 1;
  unsigned char stack[WC_PLAN_STACK];
  int top = 0;
  for (u32 i = 0; i < n; i++) {
    u32 kind = p[i] >> 30, arg = p[i] & 0x3FFFFFFFu;
    if (kind < 2) {
      stack[top++] = (unsigned char)(((wc_plan_word(s, arg >> 5) >> (arg & 31)) & 1) ^ kind);
    } else if (kind == 2 && (arg >> 29)) {
      const u32 *a = p + i + 1, *b = a + 1 + a[0];
      long long x = wc_plan_eval(a, s), y = wc_plan_eval(b, s);
      u32 cmp = arg & 7;
      stack[top++] = (unsigned char)(cmp == 0 ? x < y : cmp == 1 ? x <= y : cmp == 2 ? x == y : cmp == 3 ? x >= y : x > y);
      i += 2 + a[0] + b[0];
    } else {
      arg &= 0x1FFFFFFFu;
      unsigned char v = kind == 2;
      for (u32 j = 0; j < arg; j++) {
        unsigned char x = stack[--top];
        v = kind == 2 ? (v & x) : (v | x);
      }
      stack[top++] = v;
    }
  }
  return stack[0];
}

// Sets (or clears) the facts of pair list `list` in `t`; returns what follows it.
WC_FN const u32 *wc_plan_write(const u32 *list, u32 *t, int set) {
  u32 n = list[0];
  for (u32 i = 0; i < n; i++) wc_plan_update(t, list[1 + 2 * i], list[2 + 2 * i], set);
  return list + 1 + 2 * n;
}

WC_FN u32 wc_plan_skip(const u32 *list) { return 1 + 2 * list[0]; }

// Applies the numeric effects at `*p` (amounts read in `s`) to `t`, one after another;
// moves `*p` past them. 0 when a result leaves the 32-bit range.
WC_FN int wc_plan_numeric(const u32 **at, const u32 *s, u32 *t) {
  const u32 *p = *at;
  u32 n = *p++;
  for (u32 i = 0; i < n; i++, p += 3 + p[2]) {
    long long v = wc_plan_eval(p + 2, s), old = (long long)(int)wc_plan_word(t, p[0]);
    long long x = p[1] == 0 ? v : p[1] == 1 ? old + v : p[1] == 2 ? old - v : old * v;
    if (x < -2147483647ll - 1 || x > 2147483647ll) return 0;
    wc_plan_assign(t, p[0], (u32)(int)x);
  }
  *at = p;
  return 1;
}

// Applies action `a`, applicable in `s`, into `t`: every condition and expression read
// in `s` once, deletes before adds (the adds are collected apart and set last). 0 when
// a numeric effect's result leaves the 32-bit range (`t` is then no state).
WC_FN int wc_plan_apply(u32 a, const u32 *s, u32 *t) {
  const u32 *p = wc_plan + wc_plan[4 + a];
  p += p[0];
  u32 add[WC_WORDS];
  for (int i = 0; i < WC_WORDS; i++) {
    t[i] = s[i];
    add[i] = 0;
  }
  p = wc_plan_write(p, add, 1);
  p = wc_plan_write(p, t, 0);
  u32 n = *p++;
  for (u32 i = 0; i < n; i++) {
    int fired = wc_plan_holds(p, s);
    p += p[0];
    if (fired) {
      p = wc_plan_write(p, add, 1);
      p = wc_plan_write(p, t, 0);
      if (!wc_plan_numeric(&p, s, t)) return 0;
    } else {
      p += wc_plan_skip(p);
      p += wc_plan_skip(p);
      u32 m = *p++;
      for (u32 j = 0; j < m; j++) p += 3 + p[2];
    }
  }
  if (!wc_plan_numeric(&p, s, t)) return 0;
  for (int i = 0; i < WC_WORDS; i++) t[i] |= add[i];
  return 1;
}

#ifndef WC_PLAN_RANGE
#define WC_PLAN_RANGE(k, a) wc_emit_error(k)
#endif

WC_FN int wc_plan_try(u32 a, const u32 *s, u32 *t, WcSink *k) {
  if (!wc_plan_holds(wc_plan + wc_plan[4 + a], s)) return 0;
  if (!wc_plan_apply(a, s, t)) {
    WC_PLAN_RANGE(k, a);
    return 1;
  }
#ifdef WC_PLAN_EMIT
  WC_PLAN_EMIT(k, a, t);
#else
  wc_emit(k, t);
#endif
  return 1;
}

WC_FN int wc_successors(const u32 *s, WcSink *k) {
  const u32 *keys = wc_plan + wc_plan[3];
  const u32 *index = keys + WC_WORDS;
  u32 facts = wc_plan[1];
  const u32 *list = index + facts + 1;
  u32 t[WC_WORDS];
  int any = 0;
  // Only the true facts that key an action (most true facts key none).
  for (int w = 0; w < WC_WORDS; w++) {
    u32 bits = wc_plan_word(s, (u32)w) & keys[w];
    while (bits) {
      u32 f = (u32)w * 32 + WC_PLAN_CTZ(bits);
      bits &= bits - 1;
      for (u32 i = index[f]; i < index[f + 1]; i++) any |= wc_plan_try(list[i], s, t, k);
    }
  }
  const u32 *always = list + index[facts];
  for (u32 i = 0; i < always[0]; i++) any |= wc_plan_try(always[1 + i], s, t, k);
  return !any;
}

WC_FN int wc_assertion(const u32 *s) { return -1; }
WC_FN int wc_accepting(const u32 *s) { return 0; }
WC_FN int wc_plan_unsolved(const u32 *s) { return !wc_plan_holds(wc_plan + wc_plan[2], s); }
