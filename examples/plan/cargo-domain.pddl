; A truck drives between places and carries a crate; a drive burns 1 fuel, and 1 more
; when the truck is loaded (a conditional numeric effect: the two decreases of the
; fuel add up); a station refills the tank to its capacity. Every step costs 1.
(define (domain cargo)
  (:requirements :typing :numeric-fluents :conditional-effects)
  (:types truck place crate)
  (:predicates (at ?t - truck ?p - place) (in ?c - crate ?p - place) (loaded ?t - truck)
               (holds ?t - truck ?c - crate) (road ?a ?b - place) (station ?p - place))
  (:functions (fuel ?t - truck) (capacity ?t - truck))
  (:action drive
    :parameters (?t - truck ?a ?b - place)
    :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) 1))
    :effect (and (not (at ?t ?a)) (at ?t ?b) (decrease (fuel ?t) 1)
                 (when (loaded ?t) (decrease (fuel ?t) 1))))
  (:action load
    :parameters (?t - truck ?c - crate ?p - place)
    :precondition (and (at ?t ?p) (in ?c ?p) (not (loaded ?t)))
    :effect (and (not (in ?c ?p)) (holds ?t ?c) (loaded ?t)))
  (:action unload
    :parameters (?t - truck ?c - crate ?p - place)
    :precondition (and (at ?t ?p) (holds ?t ?c))
    :effect (and (not (holds ?t ?c)) (not (loaded ?t)) (in ?c ?p)))
  (:action refuel
    :parameters (?t - truck ?p - place)
    :precondition (and (at ?t ?p) (station ?p) (< (fuel ?t) (capacity ?t)))
    :effect (assign (fuel ?t) (capacity ?t))))
