; Two parcels from the depot: one to the mill, one to the farm. The direct road from
; the depot to the farm (length 9) is longer than the way through the mill (3 + 4).
(define (problem delivery-2)
  (:domain delivery)
  (:objects depot mill farm - town
            van - vehicle
            flour seeds - parcel)
  (:init (at van depot)
         (parcel-at flour depot) (parcel-at seeds depot)
         (road depot mill) (road mill depot) (road mill farm) (road farm mill)
         (road depot farm) (road farm depot)
         (= (road-length depot mill) 3) (= (road-length mill depot) 3)
         (= (road-length mill farm) 4) (= (road-length farm mill) 4)
         (= (road-length depot farm) 9) (= (road-length farm depot) 9)
         (= (total-cost) 0))
  (:goal (and (parcel-at flour mill) (parcel-at seeds farm)))
  (:metric minimize (total-cost)))
