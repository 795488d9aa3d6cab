//! The successor orders of the nested depth-first searches: the model's, or a random
//! permutation of each state's successors drawn from a xorshift64 generator (Fisher–
//! Yates). A depth-first search that meets a large region without accepting cycles
//! first may take very long in the model's order and little in another: a seed picks
//! one, and the same seed gives the same search.

/// A successor order: the model's, or a seeded random one.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Order {
    /// 0 for the model's order, else the generator's state.
    state: u64,
}

impl Order {
    /// The model's order.
    pub fn model() -> Order {
        Order { state: 0 }
    }

    /// The random order of `seed` (any value; mixed so that near seeds differ).
    pub fn seeded(seed: u64) -> Order {
        // SplitMix64's finaliser: a bijection, so distinct seeds give distinct states.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Order { state: (z ^ (z >> 31)) | 1 }
    }

    /// The random order from generator state `state` (odd: never the model's).
    pub fn raw(state: u64) -> Order {
        Order { state: state | 1 }
    }

    /// Puts `succ` (one state's successors) in this order.
    pub fn arrange(&mut self, succ: &mut [u32]) {
        if self.state == 0 {
            return;
        }
        for i in (1..succ.len()).rev() {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            succ.swap(i, (self.state % (i as u64 + 1)) as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Order;

    #[test]
    fn a_seed_permutes_and_repeats_itself_and_the_model_order_does_not_move() {
        let original: Vec<u32> = (0..50).collect();
        let mut model = original.clone();
        Order::model().arrange(&mut model);
        assert_eq!(model, original);
        let (mut a, mut b, mut c) = (original.clone(), original.clone(), original.clone());
        Order::seeded(7).arrange(&mut a);
        Order::seeded(7).arrange(&mut b);
        Order::seeded(8).arrange(&mut c);
        assert_eq!(a, b, "one seed, one order");
        assert_ne!(a, original);
        assert_ne!(a, c, "another seed, another order");
        a.sort_unstable();
        assert_eq!(a, original, "a permutation");
    }
}
