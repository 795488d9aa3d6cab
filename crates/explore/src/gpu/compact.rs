//! The layout of the compressed store's two compact hash sets (`struct WcSet` in
//! tree.cu, the set of inner nodes and the set of roots): buckets of [`BUCKET`]
//! entries, each entry keeping only the bits of its key that its home bucket does not
//! give (quotienting), so that an entry takes 6 bytes on a set of 2^24 buckets or more
//! and 8 on a smaller one.

/// Entries of a bucket (`WC_BUCKET` in tree.cu).
pub const BUCKET: u64 = 32;
/// The fewest buckets: an entry's kept bits then fit its 8 bytes.
const MIN_BUCKETS: u64 = 256;
/// Buckets of at least this many make 6-byte entries.
const COMPACT_BUCKETS: u64 = 1 << 24;

/// A set's buckets, the bits of a key an entry keeps (64 less those its home bucket
/// gives), and the bytes of an entry's lower part. An entry holds those bits and above
/// them its shift (how many buckets past its home, plus 1: at least 7 bits, up to 10 as
/// room allows) in its 32-bit upper part and its lower part, whose top bit marks it
/// written: 6 bytes when that fits 47 bits, else 8.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetLayout {
    pub buckets: u64,
    pub rem_bits: u32,
    pub lo_bytes: u32,
}

impl SetLayout {
    /// The layout of `buckets` buckets (at least the fewest).
    pub fn of_buckets(buckets: u64) -> SetLayout {
        let buckets = buckets.max(MIN_BUCKETS);
        let rem_bits = 64 - buckets.ilog2();
        let lo_bytes = if buckets >= COMPACT_BUCKETS { 2 } else { 4 };
        SetLayout { buckets, rem_bits, lo_bytes }
    }

    /// The layout of a set of at least `entries` entries.
    pub fn at_least(entries: u64) -> SetLayout {
        SetLayout::of_buckets(entries.div_ceil(BUCKET))
    }

    /// The layout of a set of at most `entries` entries (but the fewest buckets).
    pub fn at_most(entries: u64) -> SetLayout {
        SetLayout::of_buckets(entries / BUCKET)
    }

    /// Entries of the set.
    pub fn entries(&self) -> u64 {
        self.buckets * BUCKET
    }

    /// Bytes of an entry.
    pub fn entry_bytes(&self) -> u64 {
        4 + self.lo_bytes as u64
    }

    /// Bytes of the set.
    pub fn bytes(&self) -> u64 {
        self.entries() * self.entry_bytes()
    }

    /// 32-bit words of a bucket.
    pub fn bucket_words(&self) -> u64 {
        BUCKET * self.entry_bytes() / 4
    }

    /// The most buckets a key may lie past its home, plus 1: what the bits above the
    /// kept ones hold, at most 1,023 (a full set fails well before).
    pub fn shifts(&self) -> u32 {
        let bits = 32 + 8 * self.lo_bytes - 1 - self.rem_bits;
        (1 << bits.min(10)) - 1
    }

    /// `floor((2^64 - 1) / buckets)`: where the mixed keys of a bucket start, within
    /// `buckets` (`wc_key` in tree.cu).
    pub fn inv(&self) -> u64 {
        u64::MAX / self.buckets
    }
}

/// Bytes of an entry of a set of about `entries` entries, as [`SetLayout::at_least`]
/// lays it out.
pub fn entry_bytes(entries: u64) -> u64 {
    SetLayout::at_least(entries).entry_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_its_shift_in_its_upper_part_and_fits() {
        let mut compact = false;
        for log in 0..44 {
            for entries in [1u64 << log, (1 << log) + 1, (3 << log) / 2] {
                let l = SetLayout::at_least(entries);
                assert!(l.entries() >= entries && l.buckets >= MIN_BUCKETS, "{entries}: {l:?}");
                assert!(SetLayout::at_most(entries).entries() <= entries.max(MIN_BUCKETS * BUCKET));
                // A bucket's range of mixed keys is shorter than 2^rem_bits.
                assert!(l.buckets.ilog2() + l.rem_bits == 64, "{l:?}");
                // Shift and kept bits fit the upper part and the lower part's bits ...
                let lo_bits = 8 * l.lo_bytes - 1;
                assert!(l.shifts() >= 127, "{l:?}");
                assert!(l.rem_bits + (l.shifts() + 1).ilog2() <= 32 + lo_bits, "{l:?}");
                // ... and the shift (never 0) lies in the upper part, which is so never 0.
                assert!(l.rem_bits >= lo_bits, "{l:?}");
                assert_eq!(l.bucket_words() * 4, BUCKET * l.entry_bytes());
                compact |= l.entry_bytes() == 6;
            }
        }
        assert!(compact);
    }
}
