; As fuel-problem, with 2 fuel: the way a-b-c-d needs 3, so the guard of the last
; drive fails and the straight road is the cheapest plan: cost 5.
(define (problem fuel-low) (:domain fuel)
  (:objects t - truck a b c d - place)
  (:init (at t a) (road a b) (road b c) (road c d) (road a d)
         (= (burn a b) 1) (= (burn b c) 1) (= (burn c d) 1) (= (burn a d) 1)
         (= (distance a b) 1) (= (distance b c) 1) (= (distance c d) 1) (= (distance a d) 5)
         (= (fuel t) 2) (= (capacity t) 3) (= (refuel-cost) 4) (= (total-cost) 0))
  (:goal (at t d))
  (:metric minimize (total-cost)))
