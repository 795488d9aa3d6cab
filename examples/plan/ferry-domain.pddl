; A ferry carries cars between ports, one at a time. Every action costs 1, so a plan
; of fewest actions is optimal and the GPU's breadth-first search finds one.
(define (domain ferry)
  (:requirements :strips :typing :equality)
  (:types port car)
  (:predicates (ferry-at ?p - port)
               (car-at ?c - car ?p - port)
               (on ?c - car)
               (empty))
  (:action sail
    :parameters (?from ?to - port)
    :precondition (and (ferry-at ?from) (not (= ?from ?to)))
    :effect (and (not (ferry-at ?from)) (ferry-at ?to)))
  (:action board
    :parameters (?c - car ?p - port)
    :precondition (and (car-at ?c ?p) (ferry-at ?p) (empty))
    :effect (and (not (car-at ?c ?p)) (not (empty)) (on ?c)))
  (:action debark
    :parameters (?c - car ?p - port)
    :precondition (and (on ?c) (ferry-at ?p))
    :effect (and (not (on ?c)) (car-at ?c ?p) (empty))))
