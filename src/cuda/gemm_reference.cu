/* gemm_reference.cu - not written yet: every launcher here reports TETRA_ERR_UNSUPPORTED. */
#include "common.cuh"
#include "launch.h"

extern "C" tetra_status tetra_launch_gemm_reference(const tetra_gemm_problem *p) {
    (void)p;
    return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_gemm_reference: not implemented in this build");
}

