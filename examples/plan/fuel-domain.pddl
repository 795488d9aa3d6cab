; A truck drives between places; a drive burns fuel and needs the fuel for it
; (a numeric guard), and a station refills the tank to its capacity.
(define (domain fuel)
  (:requirements :typing :numeric-fluents :action-costs)
  (:types truck place)
  (:predicates (at ?t - truck ?p - place) (road ?a ?b - place) (station ?p - place))
  (:functions (fuel ?t - truck) (capacity ?t - truck) (burn ?a ?b - place)
              (distance ?a ?b - place) (refuel-cost) (total-cost))
  (:action drive
    :parameters (?t - truck ?a ?b - place)
    :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) (burn ?a ?b)))
    :effect (and (not (at ?t ?a)) (at ?t ?b)
                 (decrease (fuel ?t) (burn ?a ?b))
                 (increase (total-cost) (distance ?a ?b))))
  (:action refuel
    :parameters (?t - truck ?p - place)
    :precondition (and (at ?t ?p) (station ?p) (< (fuel ?t) (capacity ?t)))
    :effect (and (assign (fuel ?t) (capacity ?t))
                 (increase (total-cost) (refuel-cost)))))
