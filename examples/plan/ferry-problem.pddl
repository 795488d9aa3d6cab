; Two cars swap ports; a third stays where it is.
(define (problem ferry-swap) (:domain ferry)
  (:objects north south east - port red blue green - car)
  (:init (ferry-at north) (empty)
         (car-at red north) (car-at blue south) (car-at green east))
  (:goal (and (car-at red south) (car-at blue north) (car-at green east))))
