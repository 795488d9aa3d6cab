; Net benefit with a numeric soft goal: reach d (penalty 10) and keep at least 2
; fuel (penalty 3), from 20. Staying: 20 - 10 = 10; a-b-c-d: 20 - 3 - 3 = 14 (the
; fuel runs down to 0); straight a-d: 20 - 5 = 15, the largest.
(define (problem fuel-netbenefit) (:domain fuel)
  (:requirements :preferences :goal-utilities)
  (:objects t - truck a b c d - place)
  (:init (at t a) (road a b) (road b c) (road c d) (road a d)
         (= (burn a b) 1) (= (burn b c) 1) (= (burn c d) 1) (= (burn a d) 1)
         (= (distance a b) 1) (= (distance b c) 1) (= (distance c d) 1) (= (distance a d) 5)
         (= (fuel t) 3) (= (capacity t) 3) (= (refuel-cost) 4) (= (total-cost) 0))
  (:goal (and (preference there (at t d)) (preference reserve (>= (fuel t) 2))))
  (:metric maximize (- 20 (+ (total-cost) (* (is-violated there) 10) (* (is-violated reserve) 3)))))
