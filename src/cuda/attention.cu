/* attention.cu - not written yet: every launcher here reports TETRA_ERR_UNSUPPORTED. */
#include "common.cuh"
#include "launch.h"

extern "C" tetra_status tetra_launch_attention(tetra_context *ctx, const tetra_attention_args *args) {
    (void)ctx; (void)args;
    return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_attention: not implemented in this build");
}

