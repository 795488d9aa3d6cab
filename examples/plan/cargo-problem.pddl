; 3 fuel, the crate at b, to c with 1 fuel left: drive a b (fuel 2), load, drive b c
; loaded (fuel 0) misses the fuel goal, so refuel at b first: drive a b, load, refuel
; (fuel 3), drive b c (fuel 1), unload: 5 steps. (Were the loaded drive to burn 1,
; 4 steps would do; were every drive to burn 2, the refuel would still make it 5.)
(define (problem cargo-1) (:domain cargo)
  (:objects t - truck a b c - place x - crate)
  (:init (at t a) (in x b) (road a b) (road b c) (station b)
         (= (fuel t) 3) (= (capacity t) 3))
  (:goal (and (in x c) (>= (fuel t) 1))))
