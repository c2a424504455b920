/* gemm_mma.cu - not written yet: every launcher here reports TETRA_ERR_UNSUPPORTED. */
#include "common.cuh"
#include "launch.h"

extern "C" tetra_status tetra_launch_gemm_mma(const tetra_gemm_problem *p) {
    (void)p;
    return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_gemm_mma: not implemented in this build");
}

