/* warpcheck_lts::codegen: the successor function of a network of LTSs, interpreting
 * its tables (see codegen/tables.rs for their layout). This text is the same for
 * every network; only the #defines in front of it (the network's shape) change.
 *
 * wc_comp[3c..3c+3]: component c's first row in wc_off, its first key in wc_first, and
 *   whether it is the first participant of some group.
 * wc_off[row], wc_off[row + 1]: the local state's edges, [from, to) in wc_edge, whose
 *   edge e is (label wc_edge[2e], target wc_edge[2e + 1]), sorted by label.
 * wc_first[key], wc_first[key + 1]: for key = component's first key + local label, the
 *   groups whose first participant that is: [from, to) in wc_starts, which holds each
 *   one's offset in wc_group.
 * wc_group[g..]: product label, participants, merged (1 when the steps are merged with
 *   the state's other steps of the label), then (component, local label) per
 *   participant, the first participant first.
 * wc_net: the product's label count, the property's component and local state, the
 *   monitor's label count (its moves from q on l: [wc_mon_off[q * that + l], +1)).
 * wc_asked[k]: wc_label k is the assertion (0) or action proposition a (a + 1), whose
 *   matches are wc_act[a * labels + product label]. */

/* The edges of row `at` labelled `l`: [*a, *b) (binary search for the first). */
WC_FN void wc_range(u32 at, u32 l, u32 *a, u32 *b) {
  u32 lo = wc_off[at], hi = wc_off[at + 1], end = hi;
  while (lo < hi) {
    u32 mid = (lo + hi) / 2;
    if (wc_edge[2 * mid] < l) lo = mid + 1; else hi = mid;
  }
  *a = lo;
  while (lo < end && wc_edge[2 * lo] == l) lo++;
  *b = lo;
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
      for (u32 x = wc_first[key]; x < wc_first[key + 1]; x++) {
        const u32 *g = wc_group + wc_starts[x];
        u32 label = g[0], n = g[1];
        comp[0] = c; from[0] = e; to[0] = f;
        u32 j = 1;
        for (; j < n; j++) {
          comp[j] = g[3 + 2 * j];
          wc_range(wc_comp[3 * comp[j]] + s[comp[j]], g[4 + 2 * j], &from[j], &to[j]);
          if (from[j] == to[j]) break;
        }
        if (j < n) continue;
        for (j = 0; j < n; j++) at[j] = from[j];
        u32 *merge = g[2] ? seen : 0;
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
