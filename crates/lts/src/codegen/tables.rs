//! The tables that the fixed C body (`network.c`) interprets: the components' edges,
//! the index of the groups by their first participant, the groups themselves, and
//! the monitor and the labels asked for. Their layout is documented at the top of
//! `network.c`; every network has the same tables, in the same order (the monitor's
//! as one word when there is none), so that its source differs from another
//! network's only in the `#define`s of its shape.

use warpcheck_model::cuda::{Table, Unsupported};

use crate::network::Network;

/// The groups by their first participant: `[component][local label]`, in group order.
pub(super) fn by_first(net: &Network) -> Vec<Vec<Vec<u32>>> {
    let mut by_first: Vec<Vec<Vec<u32>>> = net.components.iter().map(|c| vec![vec![]; c.labels.len()]).collect();
    for (g, group) in net.groups.iter().enumerate() {
        let (c, l) = group.parts[0];
        by_first[c as usize][l as usize].push(g as u32);
    }
    by_first
}

/// A table, with one word when `data` is empty (a device copy of nothing is no
/// pointer).
fn table(name: &str, mut data: Vec<u32>) -> Table {
    if data.is_empty() {
        data.push(0);
    }
    Table { name: name.to_string(), data }
}

/// A count as a table word, or why the network is too large for the GPU code.
fn word(n: usize, what: &str) -> Result<u32, Unsupported> {
    u32::try_from(n).map_err(|_| Unsupported::Model(format!("the network has too many {what} for the GPU code")))
}

/// Every table of the network's source, in declaration order. `shared[g]`: group
/// `g`'s steps are merged; `asked`: per `wc_label`, 0 for the assertion or the action
/// proposition's index + 1.
pub(super) fn tables(
    net: &Network,
    by_first: &[Vec<Vec<u32>>],
    shared: &[bool],
    asked: &[u32],
) -> Result<Vec<Table>, Unsupported> {
    let edges: usize = net.components.iter().map(|c| c.transitions()).sum();
    word(edges.saturating_mul(2), "transitions")?;
    let (mut comp, mut off, mut edge) = (Vec::new(), Vec::new(), Vec::with_capacity(2 * edges));
    let rows: Vec<usize> = (net.components.iter())
        .scan(0, |row, c| {
            let first = *row;
            *row += c.states() as usize + 1;
            Some(first)
        })
        .collect();
    let (mut first, mut group) = (vec![0u32], Vec::new());
    for (c, component) in net.components.iter().enumerate() {
        let starts_some = by_first[c].iter().any(|g| !g.is_empty());
        comp.extend([word(off.len(), "local states")?, word(first.len() - 1, "labels")?, starts_some as u32]);
        for s in 0..component.states() {
            off.push(word(edge.len() / 2, "transitions")?);
            edge.extend(component.out(s).iter().flat_map(|&(l, t)| [l, t]));
        }
        off.push(word(edge.len() / 2, "transitions")?);
        for groups in &by_first[c] {
            for &i in groups {
                let g = &net.groups[i as usize];
                group.extend([g.label, g.parts.len() as u32, shared[i as usize] as u32]);
                for &(c, l) in &g.parts[1..] {
                    group.extend([c, word(rows[c as usize], "local states")?, l]);
                }
            }
            first.push(word(group.len(), "groups")?);
        }
    }
    let labels = net.labels.len() as u32;
    let (prop_c, prop_s) = net.property.unwrap_or((0, 0));
    let monitor_labels = net.monitor.as_ref().map_or(0, |m| m.observed.len() as u32);
    let act = net.actions.iter().flat_map(|a| a.matches.iter().map(|&m| m as u32)).collect();
    let mut out = vec![
        table("wc_comp", comp),
        table("wc_off", off),
        table("wc_edge", edge),
        table("wc_first", first),
        table("wc_group", group),
        table("wc_net", vec![labels, prop_c, prop_s, monitor_labels]),
        table("wc_asked", asked.to_vec()),
        table("wc_act", act),
    ];
    let m = net.monitor.as_ref();
    let (mon_off, mon_tgt) = m.map_or((&[][..], &[][..]), |m| m.table());
    out.extend([
        table("wc_mon_obs", m.map_or(vec![], |m| m.observed.iter().map(|&o| o as u32).collect())),
        table("wc_mon_err", m.map_or(vec![], |m| m.error.iter().map(|&e| e as u32).collect())),
        table("wc_mon_off", mon_off.to_vec()),
        table("wc_mon_tgt", mon_tgt.to_vec()),
    ]);
    Ok(out)
}
