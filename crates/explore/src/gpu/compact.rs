//! The layout of the compressed store's two compact hash sets (`struct WcSet` in
//! tree.cu, the set of inner nodes and the set of roots): buckets of one 32-byte
//! sector each, every entry keeping only the bits of its key that its home bucket does
//! not give (quotienting), so that a bucket holds 5 entries of 6 bytes on a set of 2^24
//! buckets or more and 4 of 8 on a smaller one.

/// Bytes of a bucket: one sector of device memory (`WC_BUCKET_WORDS` words in tree.cu).
pub const BUCKET_BYTES: u64 = 32;
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
        let compact = SetLayout::of_buckets(entries.div_ceil(5));
        if compact.lo_bytes == 2 {
            return compact;
        }
        // Past 4 * (2^24 - 1) entries the fewest buckets that hold them are compact.
        SetLayout::of_buckets(entries.div_ceil(4).min(COMPACT_BUCKETS))
    }

    /// The layout of a set of at most `entries` entries (but the fewest buckets).
    pub fn at_most(entries: u64) -> SetLayout {
        let compact = SetLayout::of_buckets(entries / 5);
        if compact.lo_bytes == 2 {
            return compact;
        }
        SetLayout::of_buckets((entries / 4).min(COMPACT_BUCKETS - 1))
    }

    /// Entries of a bucket (`WC_SLOTS` in tree.cu).
    pub fn slots(&self) -> u64 {
        if self.lo_bytes == 2 {
            5
        } else {
            4
        }
    }

    /// Entries of the set.
    pub fn entries(&self) -> u64 {
        self.buckets * self.slots()
    }

    /// Bytes an entry takes, its bucket's share included: 6.4 or 8.
    pub fn entry_bytes(&self) -> f64 {
        BUCKET_BYTES as f64 / self.slots() as f64
    }

    /// Bytes of the whole buckets that hold `entries` entries of this set.
    pub fn bytes_of(&self, entries: u64) -> u64 {
        entries.div_ceil(self.slots()) * BUCKET_BYTES
    }

    /// Bytes of the set.
    pub fn bytes(&self) -> u64 {
        self.buckets * BUCKET_BYTES
    }

    /// `entries` rounded down to whole buckets.
    pub fn whole(&self, entries: u64) -> u64 {
        entries / self.slots() * self.slots()
    }

    /// 32-bit words of a bucket.
    pub fn bucket_words(&self) -> u64 {
        BUCKET_BYTES / 4
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

/// Bytes an entry takes in a set of about `entries` entries, as
/// [`SetLayout::at_least`] lays it out.
pub fn entry_bytes(entries: u64) -> f64 {
    SetLayout::at_least(entries).entry_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_its_shift_in_its_upper_part_and_fits() {
        let mut compact = false;
        for log in 0..44 {
            for entries in [1u64 << log, (1 << log) + 1, (3 << log) / 2, (5 << log) / 4] {
                let l = SetLayout::at_least(entries);
                assert!(l.entries() >= entries && l.buckets >= MIN_BUCKETS, "{entries}: {l:?}");
                // No more buckets than needed: one fewer would not hold them (nor would
                // fewer than the fewest compact ones).
                let fewer = SetLayout::of_buckets(l.buckets - 1);
                assert!(l.buckets == MIN_BUCKETS || fewer.entries() < entries, "{entries}: {l:?}");
                let most = SetLayout::at_most(entries);
                assert!(most.entries() <= entries.max(MIN_BUCKETS * 4), "{entries}: {most:?}");
                // At most leaves less than a bucket of the smaller kind and the
                // boundary between the kinds unused.
                assert!(entries < MIN_BUCKETS * 4 || most.entries() * 5 / 4 + 5 >= entries, "{entries}: {most:?}");
                // A bucket's range of mixed keys is shorter than 2^rem_bits.
                assert!(l.buckets.ilog2() + l.rem_bits == 64, "{l:?}");
                // Shift and kept bits fit the upper part and the lower part's bits ...
                let lo_bits = 8 * l.lo_bytes - 1;
                assert!(l.shifts() >= 127, "{l:?}");
                assert!(l.rem_bits + (l.shifts() + 1).ilog2() <= 32 + lo_bits, "{l:?}");
                // ... and the shift (never 0) lies in the upper part, which is so never 0.
                assert!(l.rem_bits >= lo_bits, "{l:?}");
                // A bucket's parts fit its sector.
                assert!(l.slots() * (4 + l.lo_bytes as u64) <= BUCKET_BYTES);
                assert_eq!(l.bytes(), l.bucket_words() * 4 * l.buckets);
                assert_eq!(l.bytes_of(l.entries()), l.bytes());
                compact |= l.lo_bytes == 2;
            }
        }
        assert!(compact);
    }
}
