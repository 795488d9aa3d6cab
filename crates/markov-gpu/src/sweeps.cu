// The sweeps of warpcheck's probabilistic solvers on a CUDA GPU (see lib.rs).
//
// A system `x_i = opt over the rows r of unknown i of (b[r] + Σ A[r][j] x[j])` sits in
// device memory as the row-grouped matrix of `MkSystem`. Every kernel takes that and a
// `MkIter` (the vectors of this launch and its settings), loops grid-stride over the
// unknowns, and computes a row exactly as the CPU does (rows in order, entries in
// order; compiled without fused multiply-add), so both give the same bits.
//
// Sweeps run either from one vector into another (Jacobi: `nx != x`, the default) or
// in place (`nx == x`, `ny == y`): then an update may read values other threads wrote in the
// same sweep, or older ones; both keep interval iteration's bounds sound (the monotone
// operator applied to a vector below the least fixpoint stays below it), and fresher
// values converge in fewer sweeps. Each unknown is written by its own thread only.
//
// Convergence is tested on the device: a sweep of interval or value iteration sets
// `flags[slot]` when some unknown is not yet converged, and returns at once when
// `flags[slot - 1]` is clear (an earlier sweep of the batch converged), so the host
// enqueues a batch of sweeps and reads the flags once.
//
// The same source compiles as C++ on the host with one-thread stand-ins for the CUDA
// built-ins (host.rs), where the tests run it against the CPU engine.

typedef unsigned long long mk_u64;

typedef struct {
  const mk_u64 *groups;   // n + 1 offsets into the rows
  const mk_u64 *starts;   // rows + 1 offsets into columns / values
  const unsigned *columns;
  const double *values;
  const double *b;        // per row
  mk_u64 n;               // unknowns
} MkSystem;

typedef struct {
  const double *x;        // the vector swept (lower bound, iterate)
  double *nx;             // its next value
  const double *y;        // the second vector (upper bound)
  double *ny;             // its next value
  double *sum;            // weighted sums: sum += weight * x
  unsigned *flags;        // per sweep of the batch: not yet converged
  double precision;
  double weight;
  unsigned slot;          // this sweep's flag; a guarded sweep reads slot - 1
  unsigned max;           // 1: maximise over rows, 0: minimise
  unsigned relative;      // the precision is relative
  unsigned monotone;      // value iteration keeps max(x, f(x))
  unsigned guard;         // return when flags[slot - 1] is clear
  unsigned unused;        // padding to a multiple of 8 bytes
} MkIter;

#define MK_ROUNDING 1e-14

#if defined(__CUDACC__)
// Grid-stride over the unknowns from the last down (the first blocks take the last
// unknowns: successors tend to have larger numbers, so in-place sweeps read more
// fresh values).
#define MK_FOR(i, n) \
  for (mk_u64 t_ = (mk_u64)blockIdx.x * blockDim.x + threadIdx.x, i = (n) - 1 - t_; t_ < (n); \
       t_ += (mk_u64)gridDim.x * blockDim.x, i = (n) - 1 - t_)
// One store per warp whose lanes found an unknown not converged.
#define MK_RAISE(flag, bad) \
  do { \
    unsigned mask_ = __activemask(); \
    if (__any_sync(mask_, bad) && (threadIdx.x & 31) == (unsigned)(__ffs(mask_) - 1)) *(flag) = 1; \
  } while (0)
#define MK_DEVICE __device__ static inline
#define MK_KERNEL extern "C" __global__ void
#endif

MK_DEVICE double mk_step(const MkSystem *s, unsigned max, const double *x, mk_u64 i) {
  double best = 0.0;
  int first = 1;
  for (mk_u64 r = s->groups[i]; r < s->groups[i + 1]; r++) {
    double v = s->b[r];
    for (mk_u64 e = s->starts[r]; e < s->starts[r + 1]; e++) v += s->values[e] * x[s->columns[e]];
    if (first) {
      best = v;
      first = 0;
    } else {
      best = max ? fmax(best, v) : fmin(best, v);
    }
  }
  return best;
}

// |a - b| within the precision (successive iterates).
MK_DEVICE int mk_close(const MkIter *it, double a, double b) {
  double d = fabs(a - b);
  if (it->relative) return d <= it->precision * fmin(fabs(a), fabs(b)) || d == 0.0;
  return d <= it->precision;
}

// upper - lower within twice the precision (bounds).
MK_DEVICE int mk_tight(const MkIter *it, double lower, double upper) {
  double d = upper - lower;
  if (it->relative) return d <= 2.0 * it->precision * fabs(lower) || d <= 0.0;
  return d <= 2.0 * it->precision;
}

MK_DEVICE int mk_skip(const MkIter *it) { return it->guard && it->slot > 0 && it->flags[it->slot - 1] == 0; }

// flags[slot] = some unknown's bounds x (lower), y (upper) not tight.
MK_KERNEL mk_check(MkSystem s, MkIter it) {
  int bad = 0;
  MK_FOR(i, s.n) bad |= !mk_tight(&it, it.x[i], it.y[i]);
  MK_RAISE(&it.flags[it.slot], bad);
}

// One sweep of interval iteration: nx = max(x, f(x)), ny = min(y, f(y)).
MK_KERNEL mk_interval(MkSystem s, MkIter it) {
  if (mk_skip(&it)) return;
  int bad = 0;
  MK_FOR(i, s.n) {
    double l = fmax(it.x[i], mk_step(&s, it.max, it.x, i));
    double u = fmin(it.y[i], mk_step(&s, it.max, it.y, i));
    it.nx[i] = l;
    it.ny[i] = u;
    bad |= !mk_tight(&it, l, u);
  }
  MK_RAISE(&it.flags[it.slot], bad);
}

// One sweep of value iteration: nx = f(x) (monotone: max(x, f(x))).
MK_KERNEL mk_value(MkSystem s, MkIter it) {
  if (mk_skip(&it)) return;
  int bad = 0;
  MK_FOR(i, s.n) {
    double f = mk_step(&s, it.max, it.x, i);
    bad |= !mk_close(&it, it.x[i], f);
    it.nx[i] = it.monotone ? fmax(it.x[i], f) : f;
  }
  MK_RAISE(&it.flags[it.slot], bad);
}

// Optimistic value iteration's probe: nx = max(x, f(x)); ny = f(y); flags[0]: y not
// inductive somewhere, flags[1]: y not rising somewhere.
MK_KERNEL mk_probe(MkSystem s, MkIter it) {
  int not_inductive = 0, not_rising = 0;
  MK_FOR(i, s.n) {
    double u = it.y[i];
    double f = mk_step(&s, it.max, it.y, i);
    it.ny[i] = f;
    not_inductive |= !(f <= u + fabs(u) * MK_ROUNDING);
    not_rising |= !(f >= u);
    it.nx[i] = fmax(it.x[i], mk_step(&s, it.max, it.x, i));
  }
  MK_RAISE(&it.flags[0], not_inductive);
  MK_RAISE(&it.flags[1], not_rising);
}

// nx = x plus the precision (relative or absolute).
MK_KERNEL mk_guess(MkSystem s, MkIter it) {
  MK_FOR(i, s.n) it.nx[i] = it.relative ? it.x[i] + fabs(it.x[i]) * it.precision : it.x[i] + it.precision;
}

// One plain sweep nx = f(x), after sum += weight * x where `sum` is given.
MK_KERNEL mk_sweep(MkSystem s, MkIter it) {
  MK_FOR(i, s.n) {
    if (it.sum && it.weight > 0.0) it.sum[i] += it.weight * it.x[i];
    it.nx[i] = mk_step(&s, it.max, it.x, i);
  }
}

// sum += weight * x.
MK_KERNEL mk_add(MkSystem s, MkIter it) {
  MK_FOR(i, s.n) it.sum[i] += it.weight * it.x[i];
}
