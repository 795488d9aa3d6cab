; Values that are not integers: 4 fuel, drives that burn 1.5, a tank of 4.5. The
; three short drives burn 4.5, half a unit more than the tank holds, so the truck
; refuels at b: drive a b (2.5 left), refuel (4.5, cost 4), drive b c, drive c d:
; cost 1 + 4 + 1 + 1 = 7. (Rounded to 1 per drive, the three drives alone would do,
; at cost 3; the straight road burns 4.5 and is out of reach.)
(define (problem fuel-decimal) (:domain fuel)
  (:objects t - truck a b c d - place)
  (:init (at t a) (road a b) (road b c) (road c d) (road a d) (station b)
         (= (burn a b) 1.5) (= (burn b c) 1.5) (= (burn c d) 1.5) (= (burn a d) 4.5)
         (= (distance a b) 1) (= (distance b c) 1) (= (distance c d) 1) (= (distance a d) 5)
         (= (fuel t) 4) (= (capacity t) 4.5) (= (refuel-cost) 4) (= (total-cost) 0))
  (:goal (at t d))
  (:metric minimize (total-cost)))
