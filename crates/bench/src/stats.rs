//! Small statistics of repeated measurements: median, minimum, geometric mean.

/// The median of `values` (the mean of the two middle ones for an even count), or
/// `None` when there are none. NaNs sort last and are not expected.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 { sorted[mid] } else { (sorted[mid - 1] + sorted[mid]) / 2.0 })
}

/// The smallest of `values`, or `None` when there are none.
pub fn minimum(values: &[f64]) -> Option<f64> {
    values.iter().copied().min_by(|a, b| a.total_cmp(b))
}

/// The geometric mean of the positive finite `values`, or `None` when there are none.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = values.iter().filter(|v| v.is_finite() && **v > 0.0).map(|v| v.ln()).collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[4.0]), Some(4.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[5.0, 5.0, 1.0, 9.0, 7.0]), Some(5.0));
    }

    #[test]
    fn minimum_and_geometric_mean() {
        assert_eq!(minimum(&[]), None);
        assert_eq!(minimum(&[3.0, 0.5, 2.0]), Some(0.5));
        assert_eq!(geometric_mean(&[]), None);
        let g = geometric_mean(&[2.0, 8.0]).unwrap();
        assert!((g - 4.0).abs() < 1e-12);
        // Non-positive values (a failed run's ratio) are left out rather than poisoning the mean.
        let g = geometric_mean(&[1.0, 0.0, 4.0]).unwrap();
        assert!((g - 2.0).abs() < 1e-12);
    }
}
