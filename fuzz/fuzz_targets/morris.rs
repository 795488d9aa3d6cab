//! Fuzz target for the Nine Men's Morris position notation: any text is an error or a
//! position that formats back to text parsing to the same position, and whose moves
//! can be generated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpcheck_puzzle::morris::notation::{format, parse};
use warpcheck_puzzle::morris::rules::for_each_move;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(given) = parse(text) {
        assert_eq!(parse(&format(&given)), Ok(given));
        let mut moves = 0u32;
        for_each_move(given.position, |_| moves += 1);
        assert!(moves <= 24 * 24 * 9);
    }
});
