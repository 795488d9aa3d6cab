; A van delivers parcels between towns. Driving costs the road's length (a static
; function of the problem), loading and unloading cost 1 each.
(define (domain delivery)
  (:requirements :strips :typing :action-costs)
  (:types town vehicle parcel)
  (:predicates (at ?v - vehicle ?t - town)
               (parcel-at ?p - parcel ?t - town)
               (in ?p - parcel ?v - vehicle)
               (road ?from ?to - town))
  (:functions (road-length ?from ?to - town) - number
              (total-cost) - number)
  (:action drive
    :parameters (?v - vehicle ?from ?to - town)
    :precondition (and (at ?v ?from) (road ?from ?to))
    :effect (and (not (at ?v ?from)) (at ?v ?to)
                 (increase (total-cost) (road-length ?from ?to))))
  (:action load
    :parameters (?p - parcel ?v - vehicle ?t - town)
    :precondition (and (at ?v ?t) (parcel-at ?p ?t))
    :effect (and (not (parcel-at ?p ?t)) (in ?p ?v) (increase (total-cost) 1)))
  (:action unload
    :parameters (?p - parcel ?v - vehicle ?t - town)
    :precondition (and (at ?v ?t) (in ?p ?v))
    :effect (and (not (in ?p ?v)) (parcel-at ?p ?t) (increase (total-cost) 1))))
