/* attention_ref.h - internal attention helpers shared by the public entry point, the CPU
 * oracle, the tests and the bench: shape/stride validation with resolved defaults, and
 * the FP64 host reference of tetra_attention_fwd. */
#ifndef TETRA_ATTENTION_REF_H
#define TETRA_ATTENTION_REF_H

#include "tetra.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Validate everything about `a` that does not need a device: dtype, head_dim in
 * {64,128}, sizes >= 1, heads_kv divides heads_q, strides (0 or >= what the layout needs,
 * no two [N,H] rows of one tensor overlap), every addressed offset fits in int64, scale
 * finite, path in 0..3, q/k/v/o non-NULL and element-aligned. On success *out is a copy
 * of *a with every stride resolved (0 -> contiguous [B,N,H,D]) and scale resolved
 * (0 -> 1/sqrt(head_dim)). Messages name the argument ("args.q_strides[1] ..."). */
tetra_status tetra_attention_check_shape(const tetra_attention_args *a, tetra_attention_args *out);

/* How the host reference computes.
 *   EXACT:   FP64 scores, exact softmax (max-subtracted exp in FP64), FP64 P V: the oracle.
 *   ROUND_P: as EXACT, but each probability in the P V product is first rounded to the
 *            input dtype (the row sum uses the unrounded values), as a tensor-core kernel
 *            that feeds P to the MMA in BF16/FP16 does: the same-dtype reference. */
typedef enum tetra_attention_ref_mode {
    TETRA_ATTENTION_REF_EXACT = 0,
    TETRA_ATTENTION_REF_ROUND_P = 1
} tetra_attention_ref_mode;

/* Attention on the host from exactly the BF16/FP16 inputs a->q, a->k, a->v (host arrays in
 * the strided layout a describes; a->o and a->lse are ignored). Results are packed:
 * o64: NULL or B*Nq*Hq*D doubles, [B, Nq, Hq, D]; lse64: NULL or B*Hq*Nq doubles
 * (natural log; a query row with no visible key gets O = 0 and lse = -inf).
 * Multithreaded over (b, h) with pthreads; threads <= 0 uses all online CPUs. */
tetra_status tetra_attention_host(const tetra_attention_args *a, tetra_attention_ref_mode mode,
                                  double *o64, double *lse64, int threads);

#ifdef __cplusplus
}
#endif
#endif /* TETRA_ATTENTION_REF_H */
