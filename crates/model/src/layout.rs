//! The packed state vector: a layout of typed, bit-width slots in 32-bit words.
//!
//! Every state of a model is a fixed-length `[u32]`. Each variable (and each array
//! element, process control state and channel buffer cell) is one [`Slot`]: a field of
//! `width` bits at bit `shift` of word `word`, holding either an unsigned or a
//! two's-complement signed value. Slots never straddle a word boundary, so reading one
//! is a load, a shift and a mask, on the CPU and in generated GPU code alike.

/// Index of a slot in a [`Layout`].
pub type SlotId = u32;

/// The value domain of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotType {
    /// DVE `byte`: 0..=255, 8 bits.
    Byte,
    /// DVE `int`: -32768..=32767, 16 bits two's complement.
    Int,
    /// An unsigned counter or control state with values `0..=max`.
    Range { max: u32 },
}

impl SlotType {
    /// Smallest value the slot can hold.
    pub fn min(self) -> i32 {
        match self {
            SlotType::Byte | SlotType::Range { .. } => 0,
            SlotType::Int => i16::MIN as i32,
        }
    }

    /// Largest value the slot can hold.
    pub fn max(self) -> i32 {
        match self {
            SlotType::Byte => 255,
            SlotType::Int => i16::MAX as i32,
            SlotType::Range { max } => max as i32,
        }
    }

    /// Bits the slot occupies in the packed vector.
    pub fn width(self) -> u32 {
        match self {
            SlotType::Byte => 8,
            SlotType::Int => 16,
            SlotType::Range { max } => (32 - max.leading_zeros()).max(1),
        }
    }

    fn signed(self) -> bool {
        matches!(self, SlotType::Int)
    }
}

/// One field of the packed state vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub ty: SlotType,
    pub word: u32,
    pub shift: u32,
    pub width: u32,
    /// `width` low bits set.
    mask: u32,
    /// Two's complement (sign-extended on reading).
    signed: bool,
}

impl Slot {
    fn new(ty: SlotType, word: u32, shift: u32) -> Slot {
        let width = ty.width();
        let mask = if width == 32 { u32::MAX } else { (1u32 << width) - 1 };
        Slot { ty, word, shift, width, mask, signed: ty.signed() }
    }

    #[inline]
    fn mask(&self) -> u32 {
        self.mask
    }

    /// Reads the slot's value from a state vector.
    #[inline]
    pub fn get(&self, state: &[u32]) -> i32 {
        let raw = (state[self.word as usize] >> self.shift) & self.mask;
        if self.signed {
            // Sign-extend from `width` bits.
            let unused = 32 - self.width;
            ((raw << unused) as i32) >> unused
        } else {
            raw as i32
        }
    }

    /// Writes a value that the caller has checked to lie in the slot's range.
    #[inline]
    pub fn set(&self, state: &mut [u32], value: i32) {
        debug_assert!(value >= self.ty.min() && value <= self.ty.max());
        let mask = self.mask();
        let word = &mut state[self.word as usize];
        *word = (*word & !(mask << self.shift)) | (((value as u32) & mask) << self.shift);
    }

    /// Whether `value` fits in the slot's domain.
    #[inline]
    pub fn holds(&self, value: i32) -> bool {
        value >= self.ty.min() && value <= self.ty.max()
    }
}

/// The packed layout of a model's state vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    slots: Vec<Slot>,
    words: u32,
}

impl Layout {
    /// Packs slots of the given types in order, first fit into the current word.
    pub fn pack(types: &[SlotType]) -> Layout {
        let mut slots = Vec::with_capacity(types.len());
        let (mut word, mut used) = (0u32, 0u32);
        for &ty in types {
            let width = ty.width();
            if used + width > 32 {
                word += 1;
                used = 0;
            }
            slots.push(Slot::new(ty, word, used));
            used += width;
        }
        let words = if types.is_empty() { 0 } else { word + 1 };
        Layout { slots, words }
    }

    /// Number of 32-bit words in a state vector.
    pub fn words(&self) -> usize {
        self.words as usize
    }

    /// All slots, indexed by [`SlotId`].
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// One slot.
    #[inline]
    pub fn slot(&self, id: SlotId) -> &Slot {
        &self.slots[id as usize]
    }

    /// The widest run of bits after the last slot of a word (the first such word when
    /// several tie), if any: bits no slot uses.
    pub fn spare(&self) -> Option<crate::BitField> {
        let mut used = vec![0u32; self.words()];
        for s in &self.slots {
            used[s.word as usize] = used[s.word as usize].max(s.shift + s.width);
        }
        let (word, &top) = used.iter().enumerate().min_by_key(|&(w, &u)| (u, w))?;
        (top < 32).then_some(crate::BitField { word: word as u32, shift: top, width: 32 - top })
    }

    /// A state vector holding the given slot values (which must fit their slots).
    pub fn encode(&self, values: &[i32]) -> Vec<u32> {
        assert_eq!(values.len(), self.slots.len());
        let mut state = vec![0u32; self.words()];
        for (slot, &v) in self.slots.iter().zip(values) {
            slot.set(&mut state, v);
        }
        state
    }

    /// All slot values of a state vector.
    pub fn decode(&self, state: &[u32]) -> Vec<i32> {
        self.slots.iter().map(|s| s.get(state)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_without_straddling_words() {
        let l = Layout::pack(&[
            SlotType::Byte,
            SlotType::Int,
            SlotType::Range { max: 3 },
            SlotType::Byte,
            SlotType::Range { max: 0 },
        ]);
        let words: Vec<_> = l.slots().iter().map(|s| (s.word, s.shift, s.width)).collect();
        assert_eq!(words, vec![(0, 0, 8), (0, 8, 16), (0, 24, 2), (1, 0, 8), (1, 8, 1)]);
        assert_eq!(l.words(), 2);
    }

    #[test]
    fn round_trips_extreme_values() {
        let types = [SlotType::Int, SlotType::Byte, SlotType::Int, SlotType::Range { max: 5 }];
        let l = Layout::pack(&types);
        for values in [[-32768, 0, 32767, 5], [-1, 255, 0, 0], [12, 7, -300, 3]] {
            assert_eq!(l.decode(&l.encode(&values)), values);
        }
    }

    #[test]
    fn domains() {
        assert_eq!(SlotType::Range { max: 1 }.width(), 1);
        assert_eq!(SlotType::Range { max: 2 }.width(), 2);
        assert_eq!(SlotType::Range { max: 255 }.width(), 8);
        assert!(!Layout::pack(&[SlotType::Byte]).slot(0).holds(256));
        assert!(Layout::pack(&[SlotType::Int]).slot(0).holds(-5));
    }
}
