/* attention_api.c - tetra_attention_fwd: validation, then src/cuda/attention.cu. */
#include "../core/internal.h"
#include "../cuda/launch.h"

tetra_status tetra_attention_fwd(tetra_context *ctx, const tetra_attention_args *args) {
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if (!args) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "args is NULL");
    return tetra_launch_attention(ctx, args);
}
