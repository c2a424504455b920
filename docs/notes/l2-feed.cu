/* L2 -> SM feed probe (session 22; a diagnostic, not part of the library).
 * Question: how fast can the L2 -> SM path fill shared memory when every CTA reads the SAME small
 * L2-resident buffer by bulk copies, as v7 does at M = 64 (each of 112 CTAs reads all of a 512 KiB
 * A, 8 KiB per K-tile, plus 4.5 KiB of its own weight bytes per K-tile)? v7's estimated need:
 * ~22.8 B/cycle/SM, ~4.5 TB/s over 112 SMs (gemm-sm90.md, "Session 21 ... wgmma rate probe").
 *
 * Kernel: one CTA per SM (210 KiB dynamic shared memory), 64 threads. Thread 0 (producer) issues
 * 1-D bulk copies (cp.async.bulk ... mbarrier::complete_tx::bytes, no tensor map) into a ring of
 * S stages guarded by full/empty mbarriers; thread 32 (the consumer; the rest of its warp idles)
 * waits on full, reads the first and last word of each copy in the stage into an order-dependent
 * hash, then arrives on empty. Each CTA streams BYTES_PER_CTA (16 MiB, rounded down to whole
 * stages). Modes (CHUNK = the main copy's bytes):
 *   shared       every CTA reads the same 512 KiB cyclically, all from offset 0 (v7's A)
 *   shared_skew  the same, each CTA starting at its own offset (no same-line hot spot)
 *   private      each CTA reads its own 128 KiB cyclically (G x 128 KiB <= 16.5 MiB, in L2)
 *   hbm          each CTA streams its own 16 MiB once (G x 16 MiB ~ 2 GiB >> L2)
 *   mixed        per stage CHUNK of the shared 512 KiB (as shared) + CHUNK * 9 / 16 of a private
 *                HBM-streamed region (4608 B at CHUNK 8192: v7's raw weights + scales per K-tile)
 * Sweep: mode x G {112, SM count} x CHUNK {4096, 8192, 16384} x S {4, 8}; warm-up launch, then 5
 * timed launches (cudaEvents); the launch with the median time gives the per-CTA clocks.
 * Output (stdout, CSV): one line per configuration. tbps = G * bytes_per_cta / event time;
 * bytes_per_cycle_sm = bytes_per_cta / mean per-CTA clock64 cycles (the consumer's loop, from
 * just after the start barrier to its last stage); sm_ghz = mean cycles / mean per-CTA
 * %globaltimer ns; tbps_span = bytes / (last CTA end - first CTA start, %globaltimer).
 * valid: every CTA's hash in every timed launch equals the host's (words read in order from a
 * known pattern), so a broken copy cannot pass as a fast number. one_per_sm: all %smid distinct.
 * Limits of the method: the consumer's per-stage work (wait, 2-4 shared loads, hash, arrive;
 * ~100 cycles) caps CHUNK 4096 rows near 40 B/cycle/SM; bytes in flight per SM are S x stage
 * bytes, so small rings can be latency-bound: the ceiling is the best row of a mode.
 * Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o l2feed docs/notes/l2-feed.cu
 * Run:   ./l2feed > l2feed.csv   (exit 1: a CUDA error; exit 2: a hash mismatch) */
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define CK(call)                                                                                       \
    do {                                                                                               \
        cudaError_t err_ = (call);                                                                     \
        if (err_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));   \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

enum { MODE_SHARED, MODE_SHARED_SKEW, MODE_PRIVATE, MODE_HBM, MODE_MIXED, MODE_COUNT };
static const char *const mode_names[MODE_COUNT] = {"shared", "shared_skew", "private", "hbm", "mixed"};

enum {
    SMEM_BYTES = 210 * 1024, /* > half of the SM's 228 KiB: one CTA per SM */
    RING_OFFSET = 1024,      /* barriers below it, the ring above */
    SHARED_BUF_BYTES = 512 * 1024,
    PRIVATE_BYTES = 128 * 1024,
    TIMED_LAUNCHES = 5,
    MAX_CTAS = 1024
};
static const uint64_t BYTES_PER_CTA = 16ull << 20;
static const uint32_t SALT_SHARED = 0x5EED0001u, SALT_PRIVATE = 0x5EED0002u, SALT_HBM = 0x5EED0003u;

/* the word at index w of a buffer */
__host__ __device__ static inline uint32_t pattern(uint64_t w, uint32_t salt) {
    uint32_t x = (uint32_t)w * 2654435761u + salt;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    return x;
}
__host__ __device__ static inline uint32_t hash_step(uint32_t h, uint32_t word) { return (h ^ word) * 16777619u; }

/* Byte offset, in its buffer, of stage i's copy `part` (0: the CHUNK copy; 1: mixed mode's private
 * copy). SHARED_BUF_BYTES / chunk is a power of two, so the skewed wrap is a mask. */
__host__ __device__ static inline uint64_t source_offset(int mode, int part, uint32_t cta, uint32_t ctas, uint64_t i,
                                                         uint32_t chunk, uint32_t wchunk) {
    switch (mode) {
    case MODE_SHARED:
        return (i * chunk) % SHARED_BUF_BYTES;
    case MODE_SHARED_SKEW: {
        const uint64_t n = SHARED_BUF_BYTES / chunk;
        return ((n * cta / ctas + i) & (n - 1)) * chunk;
    }
    case MODE_PRIVATE:
        return (uint64_t)cta * PRIVATE_BYTES + (i * chunk) % PRIVATE_BYTES;
    case MODE_HBM:
        return (uint64_t)cta * BYTES_PER_CTA + i * chunk;
    default: /* MODE_MIXED */
        return part == 0 ? (i * chunk) % SHARED_BUF_BYTES : (uint64_t)cta * BYTES_PER_CTA + i * wchunk;
    }
}

struct feed_params {
    const uint8_t *shared_buf, *private_buf, *hbm_buf;
    int mode;
    uint32_t chunk, wchunk, stages, nstages; /* wchunk 0 except mixed; nstages per CTA */
    /* per CTA, this launch's slice */
    uint32_t *hash, *smid;
    long long *cycles;
    unsigned long long *ns_start, *ns_end;
};

/* ---- mbarriers and bulk copies (as src/cuda/gemm_sm90.cu) */
__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n.reg .pred p;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, unsigned bytes, uint32_t bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     dst),
                 "l"((uint64_t)__cvta_generic_to_global(src)), "r"(bytes), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ uint32_t ld_shared(uint32_t addr) {
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
}

__global__ void __launch_bounds__(64, 1) feed(feed_params p) {
    extern __shared__ __align__(1024) uint8_t smem[];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
    const uint32_t full = base, empty = base + 8 * p.stages, ring = base + RING_OFFSET;
    const uint32_t stage_bytes = p.chunk + p.wchunk;
    const uint32_t cta = blockIdx.x, ctas = gridDim.x;
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < p.stages; s++) {
            mbar_init(full + 8 * s, 1);  /* the producer's expect_tx */
            mbar_init(empty + 8 * s, 1); /* the consumer's arrive */
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    const uint8_t *src0 = p.mode == MODE_PRIVATE ? p.private_buf : p.mode == MODE_HBM ? p.hbm_buf : p.shared_buf;
    if (threadIdx.x == 0) {
        uint32_t slot = 0, phase = 0;
        for (uint32_t i = 0; i < p.nstages; i++) {
            mbar_wait(empty + 8 * slot, phase ^ 1); /* a fresh barrier passes parity 1 */
            const uint32_t bar = full + 8 * slot, dst = ring + slot * stage_bytes;
            mbar_arrive_expect_tx(bar, stage_bytes);
            bulk_load(dst, src0 + source_offset(p.mode, 0, cta, ctas, i, p.chunk, p.wchunk), p.chunk, bar);
            if (p.wchunk)
                bulk_load(dst + p.chunk, p.hbm_buf + source_offset(p.mode, 1, cta, ctas, i, p.chunk, p.wchunk),
                          p.wchunk, bar);
            if (++slot == p.stages) {
                slot = 0;
                phase ^= 1;
            }
        }
    } else if (threadIdx.x == 32) {
        const unsigned long long ns0 = global_ns();
        const long long c0 = clock64();
        uint32_t h = 0, slot = 0, phase = 0;
        for (uint32_t i = 0; i < p.nstages; i++) {
            mbar_wait(full + 8 * slot, phase);
            const uint32_t at = ring + slot * stage_bytes;
            /* the hash uses the words before the arrive: the stage is read before it is refilled */
            h = hash_step(h, ld_shared(at));
            h = hash_step(h, ld_shared(at + p.chunk - 4));
            if (p.wchunk) {
                h = hash_step(h, ld_shared(at + p.chunk));
                h = hash_step(h, ld_shared(at + stage_bytes - 4));
            }
            mbar_arrive(empty + 8 * slot);
            if (++slot == p.stages) {
                slot = 0;
                phase ^= 1;
            }
        }
        const long long c1 = clock64();
        const unsigned long long ns1 = global_ns();
        uint32_t sm;
        asm volatile("mov.u32 %0, %%smid;\n" : "=r"(sm));
        p.hash[cta] = h;
        p.smid[cta] = sm;
        p.cycles[cta] = c1 - c0;
        p.ns_start[cta] = ns0;
        p.ns_end[cta] = ns1;
    }
}

__global__ void fill(uint32_t *buf, uint64_t words, uint32_t salt) {
    for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < words; w += (uint64_t)gridDim.x * blockDim.x)
        buf[w] = pattern(w, salt);
}

/* the consumer's hash for one CTA, from the same offsets and pattern */
static uint32_t expected_hash(int mode, uint32_t cta, uint32_t ctas, uint32_t chunk, uint32_t wchunk, uint32_t nstages) {
    const uint32_t salt0 = mode == MODE_PRIVATE ? SALT_PRIVATE : mode == MODE_HBM ? SALT_HBM : SALT_SHARED;
    uint32_t h = 0;
    for (uint64_t i = 0; i < nstages; i++) {
        const uint64_t o0 = source_offset(mode, 0, cta, ctas, i, chunk, wchunk);
        h = hash_step(h, pattern(o0 / 4, salt0));
        h = hash_step(h, pattern((o0 + chunk - 4) / 4, salt0));
        if (wchunk) {
            const uint64_t o1 = source_offset(mode, 1, cta, ctas, i, chunk, wchunk);
            h = hash_step(h, pattern(o1 / 4, SALT_HBM));
            h = hash_step(h, pattern((o1 + wchunk - 4) / 4, SALT_HBM));
        }
    }
    return h;
}

static void *device_pattern(uint64_t bytes, uint32_t salt) {
    void *buf;
    CK(cudaMalloc(&buf, bytes));
    fill<<<1024, 256>>>((uint32_t *)buf, bytes / 4, salt);
    CK(cudaGetLastError());
    return buf;
}

int main(void) {
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (sms > MAX_CTAS) sms = MAX_CTAS;
    CK(cudaFuncSetAttribute(feed, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, feed, 64, SMEM_BYTES));
    if (per_sm != 1) {
        fprintf(stderr, "expected 1 CTA per SM at %d bytes of shared memory, got %d\n", (int)SMEM_BYTES, per_sm);
        exit(1);
    }

    const uint8_t *shared_buf = (const uint8_t *)device_pattern(SHARED_BUF_BYTES, SALT_SHARED);
    const uint8_t *private_buf = (const uint8_t *)device_pattern((uint64_t)sms * PRIVATE_BYTES, SALT_PRIVATE);
    const uint8_t *hbm_buf = (const uint8_t *)device_pattern((uint64_t)sms * BYTES_PER_CTA, SALT_HBM);
    const int slots = TIMED_LAUNCHES * sms;
    uint32_t *d_hash, *d_smid;
    long long *d_cycles;
    unsigned long long *d_ns0, *d_ns1;
    CK(cudaMalloc(&d_hash, slots * sizeof(uint32_t)));
    CK(cudaMalloc(&d_smid, slots * sizeof(uint32_t)));
    CK(cudaMalloc(&d_cycles, slots * sizeof(long long)));
    CK(cudaMalloc(&d_ns0, slots * sizeof(unsigned long long)));
    CK(cudaMalloc(&d_ns1, slots * sizeof(unsigned long long)));
    uint32_t *hash = (uint32_t *)malloc(slots * sizeof(uint32_t)), *smid = (uint32_t *)malloc(slots * sizeof(uint32_t));
    long long *cycles = (long long *)malloc(slots * sizeof(long long));
    unsigned long long *ns0 = (unsigned long long *)malloc(slots * sizeof(unsigned long long));
    unsigned long long *ns1 = (unsigned long long *)malloc(slots * sizeof(unsigned long long));
    uint32_t *want = (uint32_t *)malloc(sms * sizeof(uint32_t));
    if (!hash || !smid || !cycles || !ns0 || !ns1 || !want) {
        fprintf(stderr, "host allocation failed\n");
        exit(1);
    }
    cudaEvent_t ev_start[TIMED_LAUNCHES], ev_stop[TIMED_LAUNCHES];
    for (int k = 0; k < TIMED_LAUNCHES; k++) {
        CK(cudaEventCreate(&ev_start[k]));
        CK(cudaEventCreate(&ev_stop[k]));
    }
    CK(cudaDeviceSynchronize());

    const int grids[2] = {112 < sms ? 112 : sms, sms};
    const uint32_t chunks[3] = {4096, 8192, 16384}, stage_counts[2] = {4, 8};
    int failures = 0;
    printf("mode,ctas,chunk,wchunk,stages,inflight_bytes,bytes_per_cta,event_us,tbps,cycles_mean,cycles_max,"
           "cta_ns_mean,span_ns,sm_ghz,bytes_per_cycle_sm,tbps_span,valid,one_per_sm\n");
    for (int mode = 0; mode < MODE_COUNT; mode++)
        for (int gi = 0; gi < 2; gi++)
            for (int ci = 0; ci < 3; ci++)
                for (int si = 0; si < 2; si++) {
                    const int ctas = grids[gi];
                    if (gi == 1 && grids[1] == grids[0]) continue;
                    feed_params p;
                    p.shared_buf = shared_buf;
                    p.private_buf = private_buf;
                    p.hbm_buf = hbm_buf;
                    p.mode = mode;
                    p.chunk = chunks[ci];
                    p.wchunk = mode == MODE_MIXED ? chunks[ci] * 9 / 16 : 0;
                    p.stages = stage_counts[si];
                    const uint32_t stage_bytes = p.chunk + p.wchunk;
                    p.nstages = (uint32_t)(BYTES_PER_CTA / stage_bytes);
                    const uint64_t bytes_per_cta = (uint64_t)p.nstages * stage_bytes;
                    float ms[TIMED_LAUNCHES];
                    for (int k = -1; k < TIMED_LAUNCHES; k++) { /* k = -1: the warm-up */
                        const int at = (k < 0 ? 0 : k) * sms;
                        p.hash = d_hash + at;
                        p.smid = d_smid + at;
                        p.cycles = d_cycles + at;
                        p.ns_start = d_ns0 + at;
                        p.ns_end = d_ns1 + at;
                        if (k >= 0) CK(cudaEventRecord(ev_start[k]));
                        feed<<<ctas, 64, SMEM_BYTES>>>(p);
                        CK(cudaGetLastError());
                        if (k >= 0) CK(cudaEventRecord(ev_stop[k]));
                    }
                    CK(cudaDeviceSynchronize());
                    for (int k = 0; k < TIMED_LAUNCHES; k++) CK(cudaEventElapsedTime(&ms[k], ev_start[k], ev_stop[k]));
                    CK(cudaMemcpy(hash, d_hash, slots * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(smid, d_smid, slots * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(cycles, d_cycles, slots * sizeof(long long), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(ns0, d_ns0, slots * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(ns1, d_ns1, slots * sizeof(unsigned long long), cudaMemcpyDeviceToHost));

                    /* the median launch: the one with as many faster as slower launches */
                    int med = 0;
                    for (int k = 0; k < TIMED_LAUNCHES; k++) {
                        int below = 0, above = 0;
                        for (int j = 0; j < TIMED_LAUNCHES; j++) {
                            if (j == k) continue;
                            if (ms[j] < ms[k] || (ms[j] == ms[k] && j < k)) below++;
                            else above++;
                        }
                        if (below == TIMED_LAUNCHES / 2 && above == TIMED_LAUNCHES / 2) med = k;
                    }
                    int valid = 1, one_per_sm = 1;
                    for (int c = 0; c < ctas; c++)
                        want[c] = expected_hash(mode, c, ctas, p.chunk, p.wchunk, p.nstages);
                    for (int k = 0; k < TIMED_LAUNCHES; k++)
                        for (int c = 0; c < ctas; c++)
                            if (hash[k * sms + c] != want[c]) valid = 0;
                    const int m0 = med * sms;
                    double cyc_sum = 0.0, ns_sum = 0.0;
                    long long cyc_max = 0;
                    unsigned long long first = ~0ull, last = 0;
                    for (int c = 0; c < ctas; c++) {
                        cyc_sum += (double)cycles[m0 + c];
                        if (cycles[m0 + c] > cyc_max) cyc_max = cycles[m0 + c];
                        ns_sum += (double)(ns1[m0 + c] - ns0[m0 + c]);
                        if (ns0[m0 + c] < first) first = ns0[m0 + c];
                        if (ns1[m0 + c] > last) last = ns1[m0 + c];
                        for (int d = 0; d < c; d++)
                            if (smid[m0 + d] == smid[m0 + c]) one_per_sm = 0;
                    }
                    const double cyc_mean = cyc_sum / ctas, ns_mean = ns_sum / ctas;
                    const double total = (double)ctas * (double)bytes_per_cta;
                    const double span = (double)(last - first);
                    printf("%s,%d,%u,%u,%u,%u,%llu,%.1f,%.3f,%.0f,%lld,%.0f,%.0f,%.3f,%.2f,%.3f,%d,%d\n", mode_names[mode],
                           ctas, p.chunk, p.wchunk, p.stages, p.stages * stage_bytes,
                           (unsigned long long)bytes_per_cta, ms[med] * 1e3, total / (ms[med] * 1e-3) / 1e12, cyc_mean,
                           cyc_max, ns_mean, span, cyc_mean / ns_mean, (double)bytes_per_cta / cyc_mean,
                           total / span / 1e3, valid, one_per_sm);
                    fflush(stdout);
                    if (!valid) failures++;
                }
    if (failures) {
        fprintf(stderr, "%d configuration(s) with a hash mismatch\n", failures);
        return 2;
    }
    return 0;
}
