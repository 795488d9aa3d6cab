; 2 fuel and nothing to carry: drive a b (fuel 1), drive b c (fuel 0): 2 steps. (Were
; the empty truck to burn 2 per drive too, it would need the refuel at b: 3 steps.)
(define (problem cargo-empty) (:domain cargo)
  (:objects t - truck a b c - place x - crate)
  (:init (at t a) (in x a) (road a b) (road b c) (station b)
         (= (fuel t) 2) (= (capacity t) 3))
  (:goal (at t c)))
