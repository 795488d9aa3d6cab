//! GPUexplore's `.gpf` format (spec §3): a reader of both dialects that builds a
//! [`Network`] with GPUexplore's semantics (Def. 3 of seed 004: β = 0 entries fire
//! alone, β = 1 entries through the rule masks of their label), and a writer for
//! networks in GPUexplore form (§3.8). Label names come from the `.gpf.labels` side
//! file when there is one (`id name` per line), else `a0`, `a1`, ...

use std::collections::VecDeque;
use std::fmt::Write;
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::aut::Lts;
use crate::component::Component;
use crate::error::{Error, Result};
use crate::network::{Counting, Group, Network};

/// The two layouts of the file's start (§3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// Starts with `nr_procs`.
    Gpf2015,
    /// Starts with a liveness flag, then `nr_procs`.
    #[default]
    Gpf2016,
}

/// Reads `path` (and `path.labels` if present).
pub fn load(path: &Path, dialect: Dialect, counting: Counting) -> Result<Network> {
    let text = crate::build::read(path)?;
    let labels_path = path.with_extension("gpf.labels");
    let names = if labels_path.is_file() { Some(crate::build::read(&labels_path)?) } else { None };
    let stem = path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    parse(&text, names.as_deref(), dialect, counting)
        .map_err(|e| match e {
            Error::Invalid(m) => Error::Invalid(format!("{}: {m}", path.display())),
            e => e,
        })
        .map(|mut n| {
            for (i, c) in n.components.iter_mut().enumerate() {
                c.name = format!("{stem}.{i}");
            }
            n
        })
}

/// A cursor over the file's numbers.
struct Numbers {
    values: Vec<u32>,
    next: usize,
}

impl Numbers {
    fn take(&mut self, what: &str) -> Result<u32> {
        let v = self.values.get(self.next).copied();
        self.next += 1;
        v.ok_or_else(|| Error::Invalid(format!("the file ends before {what} (number {})", self.next)))
    }

    fn many(&mut self, n: usize, what: &str) -> Result<Vec<u32>> {
        if self.values.len().saturating_sub(self.next) < n {
            return Err(Error::Invalid(format!("the file ends within {what} ({n} numbers expected)")));
        }
        self.next += n;
        Ok(self.values[self.next - n..self.next].to_vec())
    }
}

/// GPUexplore's `-p`: the last process is the property LTS and its local state 1
/// (numbered as in the file) the error state.
pub fn with_property(mut net: Network) -> Result<Network> {
    let Some(last) = net.components.last() else { return Err(Error::Invalid("a network without processes".into())) };
    let c = net.components.len() as u32 - 1;
    // Local state 1 of the file, if it is reachable at all (else no violation).
    let error = last.original.iter().position(|&s| s == 1).map_or(u32::MAX, |i| i as u32);
    net.property = Some((c, error));
    Ok(net)
}

/// Value `j` of width `w` packed `32 / w` to an int, from `ints`.
fn packed(ints: &[u32], w: u32, j: usize) -> Option<u32> {
    let k = (32 / w) as usize;
    let int = *ints.get(j / k)?;
    let shift = (j % k) as u32 * w;
    Some(if w == 32 { int } else { (int >> shift) & ((1u32 << w) - 1) })
}

/// Parses `.gpf` text; `names` is the `.labels` side file's text.
pub fn parse(text: &str, names: Option<&str>, dialect: Dialect, counting: Counting) -> Result<Network> {
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let v: i64 = t.parse().map_err(|_| Error::Invalid(format!("line {}: `{t}` is not an integer", i + 1)))?;
        if !(i32::MIN as i64..=u32::MAX as i64).contains(&v) {
            return Err(Error::Invalid(format!("line {}: {v} does not fit in 32 bits", i + 1)));
        }
        values.push(v as u32);
    }
    let mut f = Numbers { values, next: 0 };
    let other = match dialect {
        Dialect::Gpf2016 => "--gpf-dialect 2015",
        Dialect::Gpf2015 => "--gpf-dialect 2016",
    };
    if dialect == Dialect::Gpf2016 {
        f.take("the liveness flag")?;
    }
    let n = f.take("nr_procs")? as usize;
    let bad = |m: String| Error::Invalid(format!("{m} (is it the other dialect? try {other})"));
    if !(1..=31).contains(&n) {
        return Err(bad(format!("nr_procs = {n}: between 1 and 31 processes")));
    }
    let bits_act = f.take("bits_act")?;
    if !(1..=30).contains(&bits_act) {
        return Err(bad(format!("bits_act = {bits_act}: between 1 and 30")));
    }
    f.take("proc_nrstates")?;
    f.take("bits_statevector")?;
    f.many(n + 1, "firstbit_statevector")?;
    let bits_state = f.many(n, "bits_state")?;
    if let Some(b) = bits_state.iter().find(|&&b| b == 0 || b.saturating_add(bits_act) > 31) {
        return Err(bad(format!("bits_state {b} with bits_act {bits_act}: an entry holds no target")));
    }
    let nbits_offset = f.take("nbits_offset")?;
    if !(1..=32).contains(&nbits_offset) {
        return Err(bad(format!("nbits_offset = {nbits_offset}")));
    }
    f.take("max_buf_ints")?;
    let starts = f.many(n + 1, "proc_offsets_start")?;
    if starts.windows(2).any(|w| w[0] > w[1]) {
        return Err(bad("proc_offsets_start decreases".into()));
    }
    let offsets = f.many(starts[n] as usize, "proc_offsets")?;
    let nr_trans = f.take("nr_trans")? as usize;
    let trans = f.many(nr_trans, "proc_trans")?;
    let nbits_sync = f.take("nbits_syncbits_offset")?;
    if !(1..=32).contains(&nbits_sync) {
        return Err(bad(format!("nbits_syncbits_offset = {nbits_sync}")));
    }
    let nr_sync_offsets = f.take("nr_syncbits_offsets")? as usize;
    let sync_offsets = f.many(nr_sync_offsets, "syncbits_offsets")?;
    let nr_syncbits = f.take("nr_syncbits")? as usize;
    let syncbits = f.many(nr_syncbits, "syncbits")?;
    let mut warnings = Vec::new();
    if f.next < f.values.len() {
        warnings.push(format!("{} numbers after the last field are ignored", f.values.len() - f.next));
    }
    let act_mask = (1u32 << bits_act) - 1;
    // Components: the states reachable from 0, their entries; labels sync or not.
    let mut components = Vec::with_capacity(n);
    let mut solo: FxHashSet<(u32, u32)> = FxHashSet::default();
    let mut synced: FxHashSet<u32> = FxHashSet::default();
    let mut max_label = 0;
    for i in 0..n {
        let ints = &offsets[starts[i] as usize..starts[i + 1] as usize];
        let bs = bits_state[i];
        let slots = (31 - bits_act) / bs;
        let mut lts = Lts::new(0, 1);
        let mut seen = FxHashSet::from_iter([0u32]);
        let mut queue = VecDeque::from([0u32]);
        while let Some(s) = queue.pop_front() {
            let range = packed(ints, nbits_offset, s as usize).zip(packed(ints, nbits_offset, s as usize + 1));
            let Some((a, b)) = range.filter(|(a, b)| a <= b && *b as usize <= nr_trans) else {
                return Err(bad(format!("process {i}: no valid transition offsets for local state {s}")));
            };
            for &entry in &trans[a as usize..b as usize] {
                let beta = entry & 1;
                let label = (entry >> 1) & act_mask;
                max_label = max_label.max(label);
                if beta == 0 {
                    solo.insert((i as u32, label));
                } else {
                    synced.insert(label);
                }
                for j in 0..slots {
                    let shift = 1 + bits_act + j * bs;
                    let t = (entry >> shift) & ((1u32 << bs) - 1);
                    if t == 0 {
                        break;
                    }
                    let t = t - 1;
                    lts.transitions.push((s, label + 1, t));
                    lts.states = lts.states.max(t + 1);
                    if seen.insert(t) {
                        queue.push_back(t);
                    }
                }
            }
        }
        lts.transitions.sort_unstable();
        lts.transitions.dedup();
        components.push(lts);
    }
    let label_count = max_label as usize + 1;
    let mut labels: Vec<String> = (0..label_count).map(|a| format!("a{a}")).collect();
    if let Some(names) = names {
        for line in names.lines().filter(|l| !l.trim().is_empty()) {
            let (id, name) = line.split_once(' ').unwrap_or((line, ""));
            match id.trim().parse::<usize>() {
                Ok(id) if id < label_count && !name.is_empty() => labels[id] = name.to_string(),
                Ok(_) => {}
                Err(_) => warnings.push(format!("labels file: `{line}` is not `id name`")),
            }
        }
    }
    let all_labels: Vec<String> = std::iter::once("i".to_string()).chain(labels.iter().cloned()).collect();
    let components: Vec<Component> = components
        .into_iter()
        .enumerate()
        .map(|(i, mut lts)| {
            lts.labels = all_labels.clone();
            Component::new(format!("p{i}"), &lts)
        })
        .collect();
    let mut groups = Vec::new();
    let mut solo: Vec<(u32, u32)> = solo.into_iter().collect();
    solo.sort_unstable();
    for &(i, a) in &solo {
        groups.push(Group { parts: vec![(i, a + 1)], label: a + 1 });
    }
    let mut synced: Vec<u32> = synced.into_iter().collect();
    synced.sort_unstable();
    let per_int = 32 / n;
    for a in synced {
        let range =
            packed(&sync_offsets, nbits_sync, a as usize).zip(packed(&sync_offsets, nbits_sync, a as usize + 1));
        let Some((lo, hi)) = range.filter(|(lo, hi)| lo <= hi && *hi as usize <= syncbits.len()) else {
            return Err(bad(format!("label {a}: no valid rule offsets")));
        };
        let mut masks = FxHashSet::default();
        for j in 0..(hi - lo) as usize * per_int {
            let mask = packed(&syncbits[lo as usize..hi as usize], n as u32, j).unwrap_or(0);
            if mask != 0 && masks.insert(mask) {
                let parts = (0..n as u32).filter(|p| mask >> p & 1 == 1).map(|p| (p, a + 1)).collect();
                groups.push(Group { parts, label: a + 1 });
            }
        }
    }
    Ok(Network {
        components,
        groups,
        labels: all_labels,
        counting,
        warnings,
        monitor: None,
        property: None,
        actions: vec![],
    })
}

/// Bits to hold values `0..=max` (at least 1).
fn bits_for(max: u64) -> u32 {
    (64 - max.leading_zeros()).max(1)
}

/// Packs `values` of width `w`, `32 / w` to an int.
fn pack(values: &[u32], w: u32) -> Vec<u32> {
    let k = (32 / w) as usize;
    values.chunks(k).map(|c| c.iter().enumerate().fold(0u32, |acc, (j, &v)| acc | (v << (j as u32 * w)))).collect()
}

/// Writes `net` as gpf-2016 text and its `.labels` side file, if it is in GPUexplore
/// form (§3.8): every group one component alone or `a * ... * a -> a` with no
/// relabelling, no label both alone and synchronising for one component, ≤ 31
/// components.
pub fn write(net: &Network) -> Result<(String, String)> {
    let n = net.components.len();
    let refuse = |m: String| Err(Error::Invalid(format!("cannot write a .gpf: {m}")));
    if n > 31 {
        return refuse(format!("{n} components (GPUexplore takes at most 31)"));
    }
    // Product labels used, alphabetically; each component label must be its name.
    let mut names: Vec<&str> = net.groups.iter().map(|g| net.label_name(g.label)).collect();
    names.sort_unstable();
    names.dedup();
    let id: FxHashMap<&str, u32> = names.iter().enumerate().map(|(i, &s)| (s, i as u32)).collect();
    let mut solo: FxHashSet<(u32, u32)> = FxHashSet::default();
    let mut sync: FxHashMap<(u32, u32), ()> = FxHashMap::default();
    let mut masks: Vec<Vec<u32>> = vec![Vec::new(); names.len()];
    for g in &net.groups {
        let name = net.label_name(g.label);
        for &(c, l) in &g.parts {
            if net.components[c as usize].labels[l as usize] != name {
                return refuse(format!(
                    "a vector relabels \"{}\" of {} to \"{name}\" (GPUexplore rules are `a * ... * a -> a`)",
                    net.components[c as usize].labels[l as usize], net.components[c as usize].name
                ));
            }
        }
        let a = id[name];
        if g.parts.len() == 1 {
            solo.insert((g.parts[0].0, a));
        } else {
            for &(c, _) in &g.parts {
                sync.insert((c, a), ());
            }
            masks[a as usize].push(g.parts.iter().fold(0u32, |m, &(c, _)| m | 1 << c));
        }
    }
    if let Some(&(c, a)) = solo.iter().find(|k| sync.contains_key(k)) {
        return refuse(format!(
            "label \"{}\" both fires alone and synchronises in {} (GPUexplore's kernel misses the lone move)",
            names[a as usize], net.components[c as usize].name
        ));
    }
    let bits_act = bits_for(names.len().saturating_sub(1) as u64);
    let bits_state: Vec<u32> = net.components.iter().map(|c| bits_for(c.states() as u64)).collect();
    if let Some(b) = bits_state.iter().find(|&&b| b + bits_act > 31) {
        return refuse(format!("{b} state bits and {bits_act} label bits leave no room for a target"));
    }
    // Entries, per component and state: β = 0 first, then β = 1, by label.
    let mut trans: Vec<u32> = Vec::new();
    let mut offsets: Vec<Vec<u32>> = Vec::new();
    let mut max_buf = 1usize;
    for (i, c) in net.components.iter().enumerate() {
        let slots = ((31 - bits_act) / bits_state[i]) as usize;
        let mut offs = Vec::with_capacity(c.states() as usize + 1);
        for s in 0..c.states() {
            offs.push(trans.len() as u32);
            let mut by_label: Vec<(u32, u32, Vec<u32>)> = Vec::new();
            for &(l, t) in c.out(s) {
                let Some(&a) = id.get(c.labels[l as usize].as_str()) else {
                    continue; // a label of no group never fires
                };
                let beta = if solo.contains(&(i as u32, a)) {
                    0
                } else if sync.contains_key(&(i as u32, a)) {
                    1
                } else {
                    continue;
                };
                match by_label.iter_mut().find(|e| e.1 == a) {
                    Some(e) => e.2.push(t),
                    None => by_label.push((beta, a, vec![t])),
                }
            }
            by_label.sort_unstable();
            for (beta, a, targets) in by_label {
                let chunks = targets.chunks(slots);
                if beta == 1 {
                    max_buf = max_buf.max(chunks.len());
                }
                for chunk in chunks {
                    let mut e = beta | a << 1;
                    for (j, &t) in chunk.iter().enumerate() {
                        e |= (t + 1) << (1 + bits_act + j as u32 * bits_state[i]);
                    }
                    trans.push(e);
                }
            }
        }
        offs.push(trans.len() as u32);
        offsets.push(offs);
    }
    let nbits_offset = bits_for(trans.len() as u64);
    let mut proc_offsets = Vec::new();
    let mut starts = vec![0u32];
    for offs in &offsets {
        proc_offsets.extend(pack(offs, nbits_offset));
        starts.push(proc_offsets.len() as u32);
    }
    let per_int = 32 / n.max(1);
    let mut syncbits = Vec::new();
    let mut sync_offs = vec![0u32];
    for m in &mut masks {
        m.sort_unstable();
        m.dedup();
        syncbits.extend(pack(m, n as u32));
        debug_assert_eq!(pack(m, n as u32).len(), m.len().div_ceil(per_int));
        sync_offs.push(syncbits.len() as u32);
    }
    let nbits_sync = bits_for(syncbits.len() as u64);
    let packed_sync = pack(&sync_offs, nbits_sync);
    let mut out = String::new();
    let mut line = |v: u32| {
        let _ = writeln!(out, "{v}");
    };
    line(0);
    line(n as u32);
    line(bits_act);
    line(bits_state.iter().map(|b| (31 - bits_act) / b).min().unwrap_or(0));
    line(bits_state.iter().sum::<u32>() + 1);
    let mut first = 0;
    line(0);
    for b in &bits_state {
        first += b;
        line(first);
    }
    bits_state.iter().for_each(|&b| line(b));
    line(nbits_offset);
    line(max_buf as u32);
    starts.iter().for_each(|&v| line(v));
    proc_offsets.iter().for_each(|&v| line(v));
    line(trans.len() as u32);
    trans.iter().for_each(|&v| line(v));
    line(nbits_sync);
    line(packed_sync.len() as u32);
    packed_sync.iter().for_each(|&v| line(v));
    line(syncbits.len() as u32);
    syncbits.iter().for_each(|&v| line(v));
    let labels = names.iter().enumerate().map(|(i, s)| format!("{i} {s}\n")).collect();
    Ok((out, labels))
}
