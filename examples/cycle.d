c A small weighted graph for `warpcheck cycle-mean` (Dasdan's DIMACS-like format):
c   p <name> <vertices> <arcs>, then a <from> <to> <weight> <transit time>, vertices 1..n.
c Cycles: 1-2-1 (weight -7, time 3), the self-loop 3-3 (-3, 1), 3-4-3 (7, 2); 5 has none.
c   minimum mean -7/2 (1 2), minimum ratio -3 (3), maximum mean and ratio 7/2 (3 4).
p example 5 7
a 1 2 1 1
a 2 1 -8 2
a 2 3 0 1
a 3 3 -3 1
a 3 4 5 1
a 4 3 2 1
a 4 5 9 1
