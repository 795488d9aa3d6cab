/* warpcheck_lts::codegen: the successor function of a network of LTSs, interpreting
 * its tables (see codegen/tables.rs for their layout). This text is the same for
 * every network; only the #defines in front of it (the network's shape) change.
 *
 * wc_comp[3c..3c+3]: component c's first row in wc_off, its first key in wc_first, and
 *   whether it is the first participant of some group.
 * wc_off[row], wc_off[row + 1]: the local state's edges, [from, to) in wc_edge, whose
 *   edge e is (label wc_edge[2e], target wc_edge[2e + 1]), sorted by label.
 * wc_first[key], wc_first[key + 1]: for key = component's first key + local label, the
 *   groups whose first participant that is: [from, to) in wc_group, where they lie
 *   back to back, each as its product label, its participants n, merged (1 when its
 *   steps are merged with the state's other steps of the label), then per
 *   participant after the first: its component, that component's first row in
 *   wc_off, and its local label (3 n words in all).
 * wc_net: the product's label count, the property's component and local state, the
 *   monitor's label count (its moves from q on l: [wc_mon_off[q * that + l], +1)).
 * wc_asked[k]: wc_label k is the assertion (0) or action proposition a (a + 1), whose
 *   matches are wc_act[a * labels + product label]. */

/* The edges of row `at` labelled `l`: [*a, *b) (a binary search while the row is
 * long, then a linear scan). */
WC_FN void wc_range(u32 at, u32 l, u32 *a, u32 *b) {
  u32 i = wc_off[at], end = wc_off[at + 1], hi = end;
  while (hi - i > 8) {
    u32 mid = (i + hi) / 2;
    if (wc_edge[2 * mid] < l) i = mid + 1; else hi = mid;
  }
  while (i < end && wc_edge[2 * i] < l) i++;
  *a = i;
  while (i < end && wc_edge[2 * i] == l) i++;
  *b = i;
}

/* One step out: merged with the earlier steps of the state (when `seen`), or not. */
WC_FN void wc_out(WcSink *sink, const u32 *t, u32 label, u32 *seen, u32 *nseen) {
  if (seen) {
    for (u32 k = 0; k < *nseen; k++) {
      const u32 *r = seen + k * (WC_WORDS + 1);
      if (r[0] != label) continue;
      int same = 1; for (int w = 0; w < WC_WORDS; w++) same &= r[w + 1] == t[w];
      if (same) return;
    }
    u32 *r = seen + *nseen * (WC_WORDS + 1); (*nseen)++;
    r[0] = label; for (int w = 0; w < WC_WORDS; w++) r[w + 1] = t[w];
  }
  wc_emit(sink, t);
}

/* A system step, with the monitor's moves: it stays on an unobserved label. */
WC_FN void wc_step(WcSink *sink, u32 *t, u32 label, u32 *seen, u32 *nseen) {
#if WC_NET_MONITOR
  u32 q = t[WC_NET_COMPONENTS], m = q * wc_net[3] + label;
  if (!wc_mon_obs[label]) wc_out(sink, t, label, seen, nseen);
  for (u32 i = wc_mon_off[m]; i < wc_mon_off[m + 1]; i++) {
    t[WC_NET_COMPONENTS] = wc_mon_tgt[i];
    wc_out(sink, t, label, seen, nseen);
  }
  t[WC_NET_COMPONENTS] = q;
#else
  wc_out(sink, t, label, seen, nseen);
#endif
}

/* Every step of `s`: a state tries only the groups whose first participant offers
 * the group's label there (per component, per run of equal labels in its local
 * state's edges); each choice of the participants' targets is one step, enumerated by
 * an odometer (the last participant fastest). */
WC_FN int wc_successors(const u32 *s, WcSink *sink) {
  int any = 0;
  u32 t[WC_WORDS];
  for (int w = 0; w < WC_WORDS; w++) t[w] = s[w];
#if WC_NET_MERGE > 0
  u32 seen[WC_NET_MERGE * (WC_WORDS + 1)];
#else
  u32 *seen = 0;
#endif
  u32 nseen = 0;
  u32 comp[WC_NET_MAX_PARTS], from[WC_NET_MAX_PARTS], to[WC_NET_MAX_PARTS], at[WC_NET_MAX_PARTS];
  for (u32 c = 0; c < WC_NET_COMPONENTS; c++) {
    const u32 *info = wc_comp + 3 * c;
    if (!info[2]) continue;
    u32 row = info[0] + s[c];
    for (u32 e = wc_off[row], end = wc_off[row + 1]; e < end;) {
      u32 l = wc_edge[2 * e], f = e;
      while (f < end && wc_edge[2 * f] == l) f++;
      u32 key = info[1] + l;
      for (u32 x = wc_first[key], y = wc_first[key + 1]; x < y;) {
        const u32 *g = wc_group + x;
        u32 label = g[0], n = g[1];
        u32 *merge = g[2] ? seen : 0;
        x += 3 * n;
        if (n == 1) {
          /* Alone (τ, a free label): the common case, without the odometer. */
          for (u32 i = e; i < f; i++) {
            t[c] = wc_edge[2 * i + 1];
#if WC_NET_LAST >= 0
            t[WC_NET_LAST] = label + 1;
#endif
            any = 1;
            wc_step(sink, t, label, merge, &nseen);
          }
          t[c] = s[c];
          continue;
        }
        comp[0] = c; from[0] = e; to[0] = f;
        u32 j = 1;
        for (; j < n; j++) {
          const u32 *p = g + 3 * j;
          comp[j] = p[0];
          wc_range(p[1] + s[p[0]], p[2], &from[j], &to[j]);
          if (from[j] == to[j]) break;
        }
        if (j < n) continue;
        for (j = 0; j < n; j++) at[j] = from[j];
        for (;;) {
          for (j = 0; j < n; j++) t[comp[j]] = wc_edge[2 * at[j] + 1];
#if WC_NET_LAST >= 0
          t[WC_NET_LAST] = label + 1;
#endif
          any = 1;
          wc_step(sink, t, label, merge, &nseen);
          u32 k = n;
          while (k > 0 && ++at[k - 1] == to[k - 1]) { at[k - 1] = from[k - 1]; k--; }
          if (k == 0) break;
        }
        for (j = 0; j < n; j++) t[comp[j]] = s[comp[j]];
      }
      e = f;
    }
  }
  return !any;
}

/* Whether `s` is an error state of the monitor or of the property component. */
WC_FN int wc_mon_error(const u32 *s) {
#if WC_NET_MONITOR
  if (wc_mon_err[s[WC_NET_COMPONENTS]]) return 1;
#endif
#if WC_NET_PROPERTY
  if (s[wc_net[1]] == wc_net[2]) return 1;
#endif
  return 0;
}

WC_FN int wc_assertion(const u32 *s) { return WC_ASSERTIONS && wc_mon_error(s) ? 0 : -1; }

/* The assertion (no error state), or an action proposition, which reads the last
 * action's word. */
WC_FN int wc_label(int k, const u32 *s) {
  if (k < 0 || k >= WC_NET_ASKED) return -1;
  u32 a = wc_asked[k];
  if (a == 0) return !wc_mon_error(s);
#if WC_NET_LAST >= 0
  u32 w = s[WC_NET_LAST];
  return w > 0 && wc_act[(a - 1) * wc_net[0] + w - 1];
#else
  return -1;
#endif
}

WC_FN int wc_invariant(int k, const u32 *s) { return wc_label(k, s) == 1; }
WC_FN int wc_accepting(const u32 *s) { return 0; }
