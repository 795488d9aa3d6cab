//! What users read of a decomposition: how many components, how many trivial (one
//! vertex) and non-trivial, the largest, and a histogram of sizes by powers of two;
//! and the histogram as an SVG bar chart.
//!
//! A single vertex is a trivial component whether or not it has a self-loop (as in
//! most tools, and in the papers' SCC counts): "trivial" is about size.

/// Counts of a decomposition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub vertices: u64,
    pub sccs: u64,
    /// Components of one vertex (self-loop or not).
    pub trivial: u64,
    /// Components of two or more vertices.
    pub nontrivial: u64,
    /// Vertices of the largest component (0 for the empty graph).
    pub largest: u64,
    /// `(low, high, count)`: `count` components have between `low` and `high`
    /// vertices; buckets `[1, 1], [2, 3], [4, 7], ...` up to the largest, empty ones
    /// included.
    pub histogram: Vec<(u64, u64, u64)>,
}

impl Summary {
    /// Summarises `components` (as in [`crate::Components`]: labels are vertex ids).
    pub fn of(components: &crate::Components) -> Summary {
        let n = components.of.len();
        let mut size = vec![0u32; n];
        for &c in &components.of {
            size[c as usize] += 1;
        }
        let mut s = Summary { vertices: n as u64, sccs: 0, trivial: 0, nontrivial: 0, largest: 0, histogram: vec![] };
        for &k in size.iter().filter(|&&k| k > 0) {
            let k = k as u64;
            s.sccs += 1;
            if k == 1 {
                s.trivial += 1;
            } else {
                s.nontrivial += 1;
            }
            s.largest = s.largest.max(k);
            let bucket = 63 - k.leading_zeros() as usize;
            if s.histogram.len() <= bucket {
                s.histogram.resize_with(bucket + 1, Default::default);
            }
            s.histogram[bucket].2 += 1;
        }
        for (b, entry) in s.histogram.iter_mut().enumerate() {
            entry.0 = 1 << b;
            entry.1 = (2 << b) - 1;
        }
        s
    }

    /// The histogram as an SVG bar chart (component sizes on x, counts on a log
    /// scale on y), titled `title`.
    pub fn histogram_svg(&self, title: &str) -> String {
        let (w, h, left, bottom, top) = (720.0, 360.0, 70.0, 60.0, 40.0);
        let bars = self.histogram.len().max(1) as f64;
        let slot = (w - left - 20.0) / bars;
        let max = self.histogram.iter().map(|b| b.2).max().unwrap_or(1).max(1) as f64;
        let scale = (max + 1.0).log10();
        let plot = h - bottom - top;
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" \
             font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
            w / 2.0,
            escape(title)
        );
        for (i, &(low, high, count)) in self.histogram.iter().enumerate() {
            let x = left + i as f64 * slot;
            let bh = if count == 0 { 0.0 } else { plot * (count as f64 + 1.0).log10() / scale };
            let y = h - bottom - bh;
            let range = if low == high { format!("{low}") } else { format!("{low}-{high}") };
            svg += &format!(
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"#4a7ab5\">\
                 <title>{range}: {count}</title></rect>\n",
                x + 2.0,
                slot - 4.0
            );
            svg += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{count}</text>\n",
                x + slot / 2.0,
                y - 4.0
            );
            svg += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" transform=\"rotate(-45 {:.1} {:.1})\">{range}</text>\n",
                x + slot / 2.0,
                h - bottom + 14.0,
                x + slot / 2.0,
                h - bottom + 14.0
            );
        }
        svg += &format!(
            "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"black\"/>\n\
             <text x=\"{2}\" y=\"{3}\" text-anchor=\"middle\">component size (vertices)</text>\n\
             <text x=\"16\" y=\"{4}\" transform=\"rotate(-90 16 {4})\" text-anchor=\"middle\">components (log scale)</text>\n\
             </svg>\n",
            h - bottom,
            w - 20.0,
            left + (w - left) / 2.0,
            h - 6.0,
            top + plot / 2.0
        );
        svg
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Components;

    #[test]
    fn counts_and_buckets() {
        // {0,1,2}, {3}, {4,5}, {6} with a self-loop is still trivial.
        let c = Components::from_labels(vec![2, 2, 2, 3, 5, 5, 6]);
        let s = Summary::of(&c);
        assert_eq!((s.sccs, s.trivial, s.nontrivial, s.largest), (4, 2, 2, 3));
        assert_eq!(s.histogram, vec![(1, 1, 2), (2, 3, 2)]);
        let svg = s.histogram_svg("a <test>");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n") && svg.contains("a &lt;test&gt;"));
        let empty = Summary::of(&Components { of: vec![] });
        assert_eq!((empty.sccs, empty.largest, empty.histogram.len()), (0, 0, 0));
        assert!(empty.histogram_svg("empty").contains("</svg>"));
    }
}
