//! The layer profile of a breadth-first search as an SVG bar chart: one bar per depth,
//! its height the layer's states on a linear scale, with the axes labelled and each
//! bar's exact count in its tooltip.

/// The SVG chart of `layers` (states per depth, depth 0 first), titled `title`.
pub fn layers_svg(title: &str, layers: &[u64]) -> String {
    let (w, h, left, right, bottom, top) = (760.0, 380.0, 90.0, 20.0, 50.0, 40.0);
    let plot_w = w - left - right;
    let plot_h = h - bottom - top;
    let slot = plot_w / layers.len().max(1) as f64;
    let max = layers.iter().copied().max().unwrap_or(0).max(1);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" \
         font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        w / 2.0,
        escape(title)
    );
    for (depth, &count) in layers.iter().enumerate() {
        let bar = plot_h * count as f64 / max as f64;
        svg += &format!(
            "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{bar:.2}\" fill=\"#4a7ab5\">\
             <title>depth {depth}: {count} states</title></rect>\n",
            left + depth as f64 * slot + slot * 0.1,
            h - bottom - bar,
            slot * 0.8
        );
    }
    // Depth ticks: about ten, at round steps.
    let step = nice_step(layers.len() as f64 / 10.0).max(1.0) as usize;
    for depth in (0..layers.len()).step_by(step) {
        let x = left + (depth as f64 + 0.5) * slot;
        svg += &format!("<text x=\"{x:.2}\" y=\"{:.2}\" text-anchor=\"middle\">{depth}</text>\n", h - bottom + 16.0);
    }
    // States ticks: 0, the largest layer, and round steps between.
    let tick = nice_step(max as f64 / 5.0).max(1.0);
    let mut value = 0.0;
    while value <= max as f64 {
        let y = h - bottom - plot_h * value / max as f64;
        svg += &format!(
            "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"end\">{}</text>\n\
             <line x1=\"{left}\" y1=\"{y:.2}\" x2=\"{:.2}\" y2=\"{y:.2}\" stroke=\"#ddd\"/>\n",
            left - 6.0,
            y + 4.0,
            value as u64,
            w - right
        );
        value += tick;
    }
    svg += &format!(
        "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"black\"/>\n\
         <text x=\"{2}\" y=\"{3}\" text-anchor=\"middle\">depth (moves from the start)</text>\n\
         <text x=\"16\" y=\"{4}\" transform=\"rotate(-90 16 {4})\" text-anchor=\"middle\">states in the layer</text>\n\
         </svg>\n",
        h - bottom,
        w - right,
        left + plot_w / 2.0,
        h - 8.0,
        top + plot_h / 2.0
    );
    svg
}

/// The smallest of 1, 2 or 5 times a power of ten at least `x`.
fn nice_step(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let power = 10f64.powi(x.log10().floor() as i32);
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|&s| s >= x).unwrap_or(10.0 * power)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One bar per layer, each with its exact count, the tallest reaching the top of the
    /// plot and the others in proportion.
    #[test]
    fn one_bar_per_layer_in_proportion() {
        let svg = layers_svg("sliding-tile <2x2>", &[1, 2, 2, 2, 2, 2, 1]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("sliding-tile &lt;2x2&gt;"));
        assert_eq!(svg.matches("<rect x=").count(), 7);
        assert!(svg.contains("<title>depth 0: 1 states</title>") && svg.contains("<title>depth 6: 1 states</title>"));
        // The plot is 290 high: a layer of 2 fills it, a layer of 1 half of it.
        assert!(svg.contains("height=\"290.00\"") && svg.contains("height=\"145.00\""));
        assert!(layers_svg("empty", &[]).ends_with("</svg>\n"));
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(12.0), 20.0);
        assert_eq!(nice_step(4.2e9), 5e9);
    }
}
