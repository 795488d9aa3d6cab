; Net benefit: the same van and roads, but both deliveries are optional. Flour at the
; mill is worth 10, seeds at the farm 5. Delivering both costs 11 (net 15 - 11 = 4);
; the flour alone costs 5 and forgoes the seeds' 5 (net 15 - 10 = 5, the best);
; doing nothing forgoes 15 (net 0).
(define (problem delivery-netbenefit)
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
  (:goal (and (preference flour-delivered (parcel-at flour mill))
              (preference seeds-delivered (parcel-at seeds farm))))
  (:metric maximize (- 15 (+ (total-cost)
                             (* (is-violated flour-delivered) 10)
                             (* (is-violated seeds-delivered) 5)))))
