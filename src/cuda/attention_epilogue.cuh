/* attention_epilogue.cuh - the epilogue shared by the portable (attention.cu) and Hopper
 * (attention_sm90.cu) attention kernels. Both hold O and the softmax state in the mma.sync
 * accumulator layout: a row's values are spread over the 4 lanes of a quad, each lane
 * holding two adjacent columns of every 8 (t4 = lane & 3 picks which two). Helpers take
 * values, not O's array: SASS stays byte-identical (checked on sm_80, sm_90a, sm_120a). */
#ifndef TETRA_ATTENTION_EPILOGUE_CUH
#define TETRA_ATTENTION_EPILOGUE_CUH

#include <math.h>
#include <stdint.h>

#include "common.cuh"

/* A row's sum of exponentials: each lane of the quad holds the part over its columns. */
__device__ __forceinline__ float tetra_attn_row_sum(float l) {
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    return l;
}

/* The normaliser 1 / sum; 0 for a row that saw no key (sum 0), whose O is then 0. */
__device__ __forceinline__ float tetra_attn_inv_sum(float sum) { return sum > 0.0f ? 1.0f / sum : 0.0f; }

/* The row's log-sum-exp (natural log) from its running max m (log2 domain) and sum;
 * -inf for a row that saw no key. */
__device__ __forceinline__ float tetra_attn_lse(float m, float sum) {
    return sum > 0.0f ? (m + log2f(sum)) * 0.69314718055994531f : -INFINITY;
}

/* The O row store stays in each kernel: moved into a helper here (a pointer or array
 * reference to O), it changed both kernels' SASS (instruction counts on sm_80 and
 * sm_90a), so it would need a GPU re-test and a bench for no gain in clarity. */

#endif /* TETRA_ATTENTION_EPILOGUE_CUH */
