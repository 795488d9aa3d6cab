; From a to d: along a-b-c-d (3 drives of distance 1, 1 fuel each) or straight
; a-d (distance 5, 1 fuel). With 3 fuel the long way round is cheapest: cost 3.
(define (problem fuel-full) (:domain fuel)
  (:objects t - truck a b c d - place)
  (:init (at t a) (road a b) (road b c) (road c d) (road a d)
         (= (burn a b) 1) (= (burn b c) 1) (= (burn c d) 1) (= (burn a d) 1)
         (= (distance a b) 1) (= (distance b c) 1) (= (distance c d) 1) (= (distance a d) 5)
         (= (fuel t) 3) (= (capacity t) 3) (= (refuel-cost) 4) (= (total-cost) 0))
  (:goal (at t d))
  (:metric minimize (total-cost)))
