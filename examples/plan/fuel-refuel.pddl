; 2 fuel, no straight road, a station at b: drive a b (fuel 1), refuel (fuel 3,
; cost 4), drive b c, drive c d: cost 1 + 4 + 1 + 1 = 7.
(define (problem fuel-refuel) (:domain fuel)
  (:objects t - truck a b c d - place)
  (:init (at t a) (road a b) (road b c) (road c d) (station b)
         (= (burn a b) 1) (= (burn b c) 1) (= (burn c d) 1)
         (= (distance a b) 1) (= (distance b c) 1) (= (distance c d) 1)
         (= (fuel t) 2) (= (capacity t) 3) (= (refuel-cost) 4) (= (total-cost) 0))
  (:goal (at t d))
  (:metric minimize (total-cost)))
