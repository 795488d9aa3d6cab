//! Seeded, deterministic generators of the synthetic graph families of the SCC papers
//! (Češka's thesis, Table 6.1, made with GTgraph): [`erdos_renyi`], [`rmat`] and
//! [`ssca2`]. The same parameters and seed give the same graph on every machine.
//!
//! Randomness comes from [`SplitMix64`] (Steele, Lea and Flood, OOPSLA 2014), a 64-bit
//! generator of a few lines that passes BigCrush; written by hand rather than taken
//! from a crate because a generator needs nothing more and its output must never
//! change under us.

mod erdos_renyi;
mod rmat;
mod ssca2;

pub use erdos_renyi::erdos_renyi;
pub use rmat::{rmat, RmatParams};
pub use ssca2::{ssca2, Ssca2Params};

/// The SplitMix64 pseudo-random generator.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (Lemire's multiply-shift; `bound > 0`).
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// A number in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_the_published_sequence() {
        // First outputs for seed 1234567 of the reference C implementation.
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn generators_are_deterministic_and_near_the_degree() {
        for (name, make) in [
            ("er", (|s| erdos_renyi(1 << 14, 12.0, s)) as fn(u64) -> crate::Graph),
            ("rmat", |s| rmat(1 << 14, 12.0, &RmatParams::default(), s)),
            ("ssca2", |s| ssca2(1 << 14, &Ssca2Params::default(), s)),
        ] {
            let (a, b, c) = (make(7), make(7), make(8));
            assert_eq!(a.forward(), b.forward(), "{name}: same seed, same graph");
            assert_ne!(a.forward(), c.forward(), "{name}: another seed, another graph");
            assert_eq!(a.vertices(), 1 << 14, "{name}");
            let degree = a.edges() as f64 / a.vertices() as f64;
            assert!((11.0..13.0).contains(&degree), "{name}: average degree {degree}");
        }
    }
}
