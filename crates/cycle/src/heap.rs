//! [`EdgeHeap`]: an indexed binary min-heap of edges keyed by exact fractions
//! `num / den` (`den > 0`), with insert, change of key and removal by edge id: the
//! priority queue of [`yto`](crate::yto). Hand-written because the keys change in
//! place (no well-kept crate offers an indexed heap with a custom exact order).

use std::cmp::Ordering;

use crate::ratio::compare;

const ABSENT: u32 = u32::MAX;

pub struct EdgeHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
    num: Vec<i128>,
    den: Vec<i128>,
}

impl EdgeHeap {
    /// An empty heap for edges `0..edges`.
    pub fn new(edges: usize) -> EdgeHeap {
        EdgeHeap { heap: Vec::new(), pos: vec![ABSENT; edges], num: vec![0; edges], den: vec![1; edges] }
    }

    /// The key of `e` (meaningful while `e` is in the heap or was just popped).
    pub fn key(&self, e: usize) -> (i128, i128) {
        (self.num[e], self.den[e])
    }

    fn less(&self, i: usize, j: usize) -> bool {
        let (x, y) = (self.heap[i] as usize, self.heap[j] as usize);
        match compare(self.num[x], self.den[x], self.num[y], self.den[y]) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => x < y,
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.pos[self.heap[i] as usize] = i as u32;
        self.pos[self.heap[j] as usize] = j as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if !self.less(i, p) {
                break;
            }
            self.swap(i, p);
            i = p;
        }
    }

    fn down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < self.heap.len() && self.less(l, m) {
                m = l;
            }
            if r < self.heap.len() && self.less(r, m) {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
    }

    /// Sets the key of `e` to `key`, or removes `e` for `None`.
    pub fn set(&mut self, e: usize, key: Option<(i128, i128)>) {
        let p = self.pos[e];
        match key {
            Some((n, d)) => {
                (self.num[e], self.den[e]) = (n, d);
                if p == ABSENT {
                    self.pos[e] = self.heap.len() as u32;
                    self.heap.push(e as u32);
                    self.up(self.heap.len() - 1);
                } else {
                    self.up(p as usize);
                    self.down(self.pos[e] as usize);
                }
            }
            None if p != ABSENT => self.remove_at(p as usize),
            None => {}
        }
    }

    fn remove_at(&mut self, i: usize) {
        let last = self.heap.len() - 1;
        self.swap(i, last);
        let e = self.heap.pop().unwrap();
        self.pos[e as usize] = ABSENT;
        if i < self.heap.len() {
            let moved = self.heap[i] as usize;
            self.up(i);
            self.down(self.pos[moved] as usize);
        }
    }

    /// Removes and returns the edge of the smallest key (ties: smallest edge id).
    pub fn pop(&mut self) -> Option<usize> {
        let e = *self.heap.first()? as usize;
        self.remove_at(0);
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_after_updates() {
        let mut h = EdgeHeap::new(6);
        let keys = [(3, 1), (1, 2), (-5, 3), (7, 7), (2, 4), (0, 1)];
        for (e, &k) in keys.iter().enumerate() {
            h.set(e, Some(k));
        }
        h.set(3, Some((-10, 1)));
        h.set(2, None);
        h.set(0, Some((1, 3)));
        let order: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        // -10, 0, 1/3, 1/2 (e1) and 2/4 (e4) tie: smaller id first.
        assert_eq!(order, vec![3, 5, 0, 1, 4]);
    }
}
