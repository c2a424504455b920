/* quantize.cu - not written yet: every launcher here reports TETRA_ERR_UNSUPPORTED. */
#include "common.cuh"
#include "launch.h"

extern "C" tetra_status tetra_launch_quantize(const tetra_convert_problem *p) {
    (void)p;
    return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_quantize: not implemented in this build");
}

extern "C" tetra_status tetra_launch_dequantize(const tetra_convert_problem *p) {
    (void)p;
    return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_dequantize: not implemented in this build");
}

extern "C" tetra_status tetra_launch_convert_scales(const tetra_convert_problem *p) {
    (void)p;
    return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_convert_scales: not implemented in this build");
}

