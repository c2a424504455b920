/* gemm_sm90.cu - the Hopper (sm_90a) wgmma GEMM: NOT WRITTEN YET.
 *
 * tetra_launch_gemm_wgmma reports TETRA_ERR_UNSUPPORTED for every problem, so the
 * dispatcher (src/api/gemm_api.c) falls through to the portable mma.sync GEMM
 * (gemm_mma.cu) on sm_90 too. The planned design (TMA + mbarrier pipeline, producer
 * warpgroup + setmaxnreg, consumers dequantizing B into a swizzled BF16 tile read by
 * wgmma.mma_async m64nNk16) is written down in docs/notes/gemm.md. */
#include "common.cuh"
#include "launch.h"

extern "C" tetra_status tetra_launch_gemm_wgmma(const tetra_gemm_problem *p) {
    if (p->ctx->sm_major != 9)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "wgmma GEMM needs an sm_90 device (this one is sm_%d%d)",
                          p->ctx->sm_major, p->ctx->sm_minor);
    return tetra_fail(TETRA_ERR_UNSUPPORTED,
                      "wgmma GEMM: not implemented in this build (the mma.sync path takes sm_90)");
}
