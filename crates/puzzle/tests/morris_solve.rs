//! The Nine Men's Morris databases against an independent oracle: every board of the
//! solved databases satisfies the equations of its value, checked with a move
//! generator written here from the rules in `../shared/games/README.md` (arrays of
//! points, not the solver's bit masks). A labelling that satisfies them for every board
//! is the game's unique solution: by induction on the plies, a win or loss justified by
//! a shorter one cannot be wrong, and no true win or loss can be labelled a draw.

use warpcheck_puzzle::morris::index::Index;
use warpcheck_puzzle::morris::retro::{self, Databases};
use warpcheck_puzzle::morris::rules::Position;
use warpcheck_puzzle::morris::value::Value;

/// The board as in the reference README: point `8 r + i`, ring `r` (0 outer), corners
/// at even `i`.
fn adjacent(p: usize, q: usize) -> bool {
    let (rp, ip, rq, iq) = (p / 8, p % 8, q / 8, q % 8);
    (rp == rq && ((ip + 1) % 8 == iq || (iq + 1) % 8 == ip)) || (ip == iq && ip % 2 == 1 && rp.abs_diff(rq) == 1)
}

fn mills() -> Vec<[usize; 3]> {
    let mut m = Vec::new();
    for r in 0..3 {
        for j in 0..4 {
            m.push([8 * r + 2 * j, 8 * r + 2 * j + 1, 8 * r + (2 * j + 2) % 8]);
        }
    }
    for j in 0..4 {
        m.push([2 * j + 1, 8 + 2 * j + 1, 16 + 2 * j + 1]);
    }
    m
}

/// Board cells: 1 the side to move, 2 the other, 0 empty.
type Board = [u8; 24];

fn in_a_mill(board: &Board, p: usize, mills: &[[usize; 3]]) -> bool {
    mills.iter().any(|m| m.contains(&p) && m.iter().all(|&x| board[x] == board[p]))
}

/// The board from the other side's view.
fn flip(b: &Board) -> Board {
    std::array::from_fn(|i| [0, 2, 1][b[i] as usize])
}

/// The boards after a closed mill removes an opposing piece: one outside mills, or any
/// when all are in mills.
fn removals(next: &Board, mills: &[[usize; 3]]) -> Vec<Board> {
    let loose: Vec<usize> = (0..24).filter(|&r| next[r] == 2 && !in_a_mill(next, r, mills)).collect();
    let victims: Vec<usize> = if loose.is_empty() { (0..24).filter(|&r| next[r] == 2).collect() } else { loose };
    victims
        .into_iter()
        .map(|r| {
            let mut taken = *next;
            taken[r] = 0;
            taken
        })
        .collect()
}

/// The children of a moving-phase board, each from the opponent's view, or `None` for
/// a capture that leaves the opponent two pieces.
fn children(board: &Board, mills: &[[usize; 3]]) -> Vec<Option<Board>> {
    let mine = board.iter().filter(|&&c| c == 1).count();
    let theirs = board.iter().filter(|&&c| c == 2).count();
    let mut out = Vec::new();
    for p in (0..24).filter(|&p| board[p] == 1) {
        for q in (0..24).filter(|&q| board[q] == 0 && (mine == 3 || adjacent(p, q))) {
            let mut next = *board;
            next[p] = 0;
            next[q] = 1;
            if !in_a_mill(&next, q, mills) {
                out.push(Some(flip(&next)));
                continue;
            }
            if theirs == 3 {
                out.push(None);
                continue;
            }
            out.extend(removals(&next, mills).iter().map(|b| Some(flip(b))));
        }
    }
    out
}

fn mask(board: &Board, colour: u8) -> u32 {
    (0..24).filter(|&p| board[p] == colour).fold(0, |acc, p| acc | 1 << p)
}

/// Checks the equations of every board of every database with up to `pieces` a side.
fn check(dbs: &Databases, pieces: u32) -> u64 {
    let index = Index::get();
    let mills = mills();
    let mut checked = 0;
    for a in 3..=pieces {
        for b in 3..=pieces {
            for slot in 0..index.slots(a, b) {
                let (m, o) = index.unrank(a, b, slot);
                if !index.is_canonical(m, o) {
                    continue;
                }
                let value = dbs.value(index, Position::on_board(m, o)).expect("a value");
                let board: Board = std::array::from_fn(|p| {
                    if m >> p & 1 == 1 {
                        1
                    } else if o >> p & 1 == 1 {
                        2
                    } else {
                        0
                    }
                });
                let kids: Vec<Value> = children(&board, &mills)
                    .into_iter()
                    .map(|c| match c {
                        None => Value::Loss(0),
                        Some(c) => {
                            dbs.value(index, Position::on_board(mask(&c, 1), mask(&c, 2))).expect("a child value")
                        }
                    })
                    .collect();
                let losing_kid = kids.iter().filter_map(|k| if let Value::Loss(d) = k { Some(*d) } else { None }).min();
                let ok = match value {
                    Value::Win(d) => losing_kid == Some(d - 1),
                    Value::Loss(d) => {
                        kids.iter().all(|k| matches!(k, Value::Win(e) if *e < d))
                            && (d == 0) == kids.is_empty()
                            && (d == 0 || kids.contains(&Value::Win(d - 1)))
                    }
                    Value::Draw => losing_kid.is_none() && kids.contains(&Value::Draw),
                };
                assert!(ok, "{a}-{b} slot {slot} ({m:#x}, {o:#x}): {value} with children {kids:?}");
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn every_board_of_the_small_databases_satisfies_its_equations() {
    // WARPCHECK_MORRIS_PIECES=5 checks the databases up to 5 pieces (about a minute).
    let pieces = std::env::var("WARPCHECK_MORRIS_PIECES").ok().and_then(|p| p.parse().ok()).unwrap_or(4);
    let index = Index::get();
    let mut seen = Vec::new();
    let (dbs, stats) = retro::solve(index, pieces, u64::MAX, None, |s| seen.push((s.mover, s.other))).expect("solved");
    assert_eq!(seen[..3], [(3, 3), (3, 4), (4, 3)]);
    assert_eq!(seen.len() as u32, (pieces - 2) * (pieces - 2));
    for s in &stats {
        assert_eq!(s.boards, warpcheck_puzzle::morris::boards_up_to_symmetry(s.mover, s.other), "{s:?}");
        assert_eq!(s.wins + s.losses + s.draws, s.boards);
        eprintln!("{s:?}");
    }
    let checked = check(&dbs, pieces);
    assert_eq!(checked, stats.iter().map(|s| s.boards).sum::<u64>());
}

/// The children of a placing-phase position (`hands`: the mover's and the other's
/// pieces in hand) with their hands, from the opponent's view; `None` for a mill that
/// leaves the opponent fewer than three pieces.
fn placements(board: &Board, hands: (u32, u32), mills: &[[usize; 3]]) -> Vec<Option<(Board, (u32, u32))>> {
    let theirs = board.iter().filter(|&&c| c == 2).count() as u32;
    let next_hands = (hands.1, hands.0 - 1);
    let mut out = Vec::new();
    for q in (0..24).filter(|&q| board[q] == 0) {
        let mut next = *board;
        next[q] = 1;
        if theirs == 0 || !in_a_mill(&next, q, mills) {
            out.push(Some((flip(&next), next_hands)));
        } else if theirs + hands.1 <= 3 {
            out.push(None);
        } else {
            out.extend(removals(&next, mills).iter().map(|b| Some((flip(b), next_hands))));
        }
    }
    out
}

/// The games of 3 and 4 pieces a side solved whole: every placing-phase position's
/// value is the best of its children's, by the placements generated here.
#[test]
fn the_small_games_are_solved_through_the_placing_phase() {
    use warpcheck_puzzle::morris::opening;
    let index = Index::get();
    let mills = mills();
    for k in [3, 4] {
        let (dbs, _) = retro::solve(index, k, u64::MAX, None, |_| {}).expect("solved");
        let all: Vec<u32> = (0..2 * k).collect();
        let (plies, stats) = opening::solve(index, k, &dbs, u64::MAX, &all, |_| {}).expect("solved");
        assert_eq!(stats.len() as u32, 2 * k);
        let lookup = |b: &Board, hands: (u32, u32)| -> Value {
            let pos = Position { mover: mask(b, 1), other: mask(b, 2), mover_hand: hands.0, other_hand: hands.1 };
            if hands == (0, 0) {
                dbs.value(index, pos).expect("a database value")
            } else {
                plies[&(2 * k - hands.0 - hands.1)].value(index, pos).expect("a ply value")
            }
        };
        let mut checked = 0;
        for t in 0..2 * k {
            let hands = opening::hands(k, t);
            for a in 0..=k - hands.0 {
                for b in 0..=k - hands.1 {
                    if a + hands.0 < 3 || b + hands.1 < 3 {
                        continue;
                    }
                    for slot in 0..index.slots(a, b) {
                        let (m, o) = index.unrank(a, b, slot);
                        if !index.is_canonical(m, o) {
                            continue;
                        }
                        let board: Board = std::array::from_fn(|p| {
                            if m >> p & 1 == 1 {
                                1
                            } else if o >> p & 1 == 1 {
                                2
                            } else {
                                0
                            }
                        });
                        let kids: Vec<Value> = placements(&board, hands, &mills)
                            .into_iter()
                            .map(|c| c.map_or(Value::Loss(0), |(c, h)| lookup(&c, h)))
                            .collect();
                        let expected = if let Some(d) =
                            kids.iter().filter_map(|k| if let Value::Loss(d) = k { Some(*d) } else { None }).min()
                        {
                            Value::Win(d + 1)
                        } else if kids.contains(&Value::Draw) {
                            Value::Draw
                        } else {
                            Value::Loss(
                                1 + kids
                                    .iter()
                                    .map(|k| if let Value::Win(d) = k { *d } else { unreachable!() })
                                    .max()
                                    .expect("a move"),
                            )
                        };
                        assert_eq!(lookup(&board, hands), expected, "k = {k}, ply {t}, {a}-{b} slot {slot}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, stats.iter().map(|s| s.positions).sum::<u64>());
        let start = plies[&0].value(index, Position { mover: 0, other: 0, mover_hand: k, other_hand: k });
        eprintln!("{k} pieces: the empty board is a {:?}; {stats:?}", start);
    }
}
