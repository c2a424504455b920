/* wgmma.cuh - the Hopper warpgroup-MMA pieces gemm_sm90.cu and skinny_sm90.cu share: the
 * sm_90a device test, the shared-memory matrix descriptor, fence / commit / wait, the
 * accumulator fence and the register-A (RS) m64n64k16 form. sm_90a device code only. */
#ifndef TETRA_WGMMA_CUH
#define TETRA_WGMMA_CUH

#include <stdint.h>

#include <cuda_runtime.h>

/* 1 in the sm_90a device pass (wgmma, setmaxnreg, clusters), 0 in every other pass. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TETRA_SM90_DEVICE 1
#else
#define TETRA_SM90_DEVICE 0
#endif

#if TETRA_SM90_DEVICE
/* Shared-memory matrix descriptor of a K-major tile with 128-byte rows in the 128B
 * swizzle (8-row atoms of 1024 bytes, atom base 1024-aligned): start address / 16 in
 * bits 0-13 (the low word), stride between 8-row groups 1024 bytes and layout type 1
 * (SWIZZLE_128B) in the constant high word. A k16 step inside the 64-wide tile advances
 * the start address by 32 bytes; the hardware applies the XOR. Shared addresses stay
 * below 2^18, so address / 16 fits the field and stepping it never carries into bit 14:
 * a kernel may keep only the low words (uniform registers, advanced by adds) and join
 * the constant high word with wgmma_desc_of. */
enum : uint32_t { WGMMA_DESC_HI = (1024 >> 4) | (1u << 30) };
__device__ __forceinline__ uint32_t wgmma_desc_lo(uint32_t smem_addr) { return (smem_addr & 0x3FFFFu) >> 4; }
__device__ __forceinline__ uint64_t wgmma_desc_of(uint32_t lo) { return (uint64_t)WGMMA_DESC_HI << 32 | lo; }
/* The whole descriptor of the tile at a 32-bit shared address. */
__device__ __forceinline__ uint64_t wgmma_desc(uint32_t smem_addr) { return wgmma_desc_of(wgmma_desc_lo(smem_addr)); }

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Keep the compiler from moving accumulator reads/writes across an async wgmma. */
template <int NACC> __device__ __forceinline__ void wgmma_acc_fence(float *d) {
#pragma unroll
    for (int i = 0; i < NACC; i++) asm volatile("" : "+f"(d[i]));
}

/* m64n{NT}k16 with A from registers (the "RS" form): a[0..3] are this thread's A fragment
 * (rows g and g + 8 of its warp's 16, k pairs 2t and 2t + 8), B by descriptor desc_b, NT / 2
 * FP32 accumulators d[]. NT: the width; IA, ID, IP: asm operand numbers of a[0] (then
 * "%a1,%a2,%a3"), desc_b and the scale-d flag, which follow the accumulators. */
#define TETRA_WGMMA_RS(NT, TYPE, REGS, OPS, IA, ID, IP)                                               \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" IP ", 0;\n"                                       \
                 "wgmma.mma_async.sync.aligned.m64n" NT "k16.f32." TYPE "." TYPE " "                     \
                 "{" REGS "}, {%" IA "}, %" ID ", p, 1, 1, 0;\n}\n"                                      \
                 : OPS                                                                              \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))
#define TETRA_WGMMA_N64_ACC_REGS \
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"\
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define TETRA_WGMMA_N64_ACC_OPERANDS \
          "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define TETRA_WGMMA_RS_N64(TYPE)                                                                    \
    TETRA_WGMMA_RS("64", TYPE, TETRA_WGMMA_N64_ACC_REGS, TETRA_WGMMA_N64_ACC_OPERANDS, "32,%33,%34,%35", \
                   "36", "37")
/* m64n64k16 RS: 32 accumulators */
template <bool BF16>
__device__ __forceinline__ void wgmma_rs_m64n64k16(float *d, const uint32_t *a, uint64_t desc_b) {
    if constexpr (BF16) TETRA_WGMMA_RS_N64("bf16");
    else TETRA_WGMMA_RS_N64("f16");
}
#endif /* TETRA_SM90_DEVICE */

#endif /* TETRA_WGMMA_CUH */
