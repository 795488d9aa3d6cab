; 2 fuel, no straight road and no station: d is 3 drives away, so the truck is
; stranded at c. Unsolvable, although every atom is reachable when the fuel guards
; are ignored (as the grounder's relaxation ignores them).
(define (problem fuel-stranded) (:domain fuel)
  (:objects t - truck a b c d - place)
  (:init (at t a) (road a b) (road b c) (road c d)
         (= (burn a b) 1) (= (burn b c) 1) (= (burn c d) 1)
         (= (distance a b) 1) (= (distance b c) 1) (= (distance c d) 1)
         (= (fuel t) 2) (= (capacity t) 3) (= (refuel-cost) 4) (= (total-cost) 0))
  (:goal (at t d))
  (:metric minimize (total-cost)))
