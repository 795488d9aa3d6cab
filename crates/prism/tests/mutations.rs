//! The bounded, deterministic twin of the `prism` fuzz target: thousands of mutated
//! PRISM sources (bytes deleted, duplicated, replaced by grammar fragments) are
//! loaded and built (at most 2000 states); any panic fails the test.

use warpcheck_markov::BuildOptions;

const SEEDS: &[&str] = &[
    "dtmc\nconst int N = 3;\nconst double p = 0.5;\nformula f = x + y;\nglobal g : [0..2] init 1;\n\
     module a\n  x : [0..N] init 0;\n  b : bool;\n  [s] x<N -> p : (x'=x+1) & (b'=!b) + 1-p : (x'=max(x-1,0));\n  [] b -> (x'=mod(x+1, N));\nendmodule\n\
     module c = a [x=y, b=e] endmodule\nlabel \"goal\" = f = 2 & g=1;\nrewards \"r\"\n  true : 1;\n  [s] x>0 : 2.5;\nendrewards\n",
    "mdp\nmodule m\n  x : [0..3];\n  [a] x<3 -> (x'=x+1);\n  [a] x>0 -> 0.5:(x'=x-1) + 0.5:(x'=floor(x/2));\nendmodule\n\
     module n\n  y : [0..1];\n  [a] true -> (y'=1-y);\nendmodule\ninit x<2 endinit\n",
    "ctmc\nconst int c = 2;\nmodule q\n  s : [0..c];\n  [arrive] s<c -> 2 : (s'=s+1);\n  [] s>0 -> pow(2, s) : (s'=s-1);\nendmodule\n\
     module src\n  [arrive] true -> 1.5 : true;\nendmodule\nlabel \"full\" = s=c;\n",
];

const FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ";",
    ":",
    "'",
    "=",
    "->",
    "+",
    "-",
    "*",
    "/",
    "&",
    "|",
    "!",
    "=>",
    "<=>",
    "?",
    "..",
    "0",
    "1",
    "1e400",
    "0.0",
    "-1",
    "x",
    "y",
    "N",
    "true",
    "false",
    "min(",
    "max(",
    "floor(",
    "mod(",
    "log(",
    "pow(",
    "module ",
    "endmodule",
    "init ",
    "endinit",
    "formula ",
    "label ",
    "\"",
    "rewards",
    "endrewards",
    "const ",
    "global ",
    "bool",
    "int ",
    "double ",
    "dtmc",
    "mdp",
    "ctmc",
    "//",
    "\n",
    " ",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, source: &str) -> String {
    let mut s = source.to_string();
    for _ in 0..1 + rng.below(4) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.below(3) {
            0 => {
                let mut end = (at + 1 + rng.below(8)).min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.replace_range(at..end, "");
            }
            1 => s.insert_str(at, FRAGMENTS[rng.below(FRAGMENTS.len())]),
            _ => {
                let mut end = (at + rng.below(30)).min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                let copy = s[at..end].to_string();
                s.insert_str(at, &copy);
            }
        }
    }
    s
}

#[test]
fn mutated_sources_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut loaded, mut built) = (0, 0);
    for seed in SEEDS {
        let model = warpcheck_prism::load(seed, &[]).unwrap_or_else(|d| panic!("{}", d.render("seed.prism", seed)));
        model.build(&BuildOptions::default()).expect("the seed builds");
        for _ in 0..1500 {
            let source = mutate(&mut rng, seed);
            match warpcheck_prism::load(&source, &[]) {
                Ok(model) => {
                    loaded += 1;
                    if let Ok(m) = model.build(&BuildOptions { max_states: Some(2000), valuations: true }) {
                        built += 1;
                        let _ = m.validate();
                    }
                }
                Err(d) => {
                    let _ = d.render("mutant.prism", &source);
                }
            }
        }
    }
    // The mutations keep some inputs valid, so the builder is exercised too.
    assert!(loaded > 100 && built > 50, "loaded {loaded}, built {built}");
}
