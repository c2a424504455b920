/* telemetry.c - NVML loaded at run time (dlopen), read-only: clocks, power, temperature
 * and clocks-event (throttle) reasons per block. No build-time dependency on NVML. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench.h"

typedef int nvml_ret; /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef void *nvml_dev;

static struct {
    void *lib;
    nvml_dev dev;
    nvml_ret (*shutdown)(void);
    nvml_ret (*clock)(nvml_dev, int, unsigned *);
    nvml_ret (*power)(nvml_dev, unsigned *);
    nvml_ret (*temp)(nvml_dev, int, unsigned *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    char driver[96];
} g_nvml;

#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

int bench_tel_open(int cuda_device, char *note, size_t len) {
    nvml_ret (*init)(void);
    nvml_ret (*by_bus)(const char *, nvml_dev *);
    nvml_ret (*drv)(char *, unsigned);
    char bus[64];
    if (g_nvml.lib) return 1;
    g_nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!g_nvml.lib) {
        snprintf(note, len, "NVML not available (dlopen libnvidia-ml.so.1 failed): no clocks, power or temperature logged");
        return 0;
    }
    *(void **)&init = dlsym(g_nvml.lib, "nvmlInit_v2");
    *(void **)&by_bus = dlsym(g_nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&drv = dlsym(g_nvml.lib, "nvmlSystemGetDriverVersion");
    *(void **)&g_nvml.shutdown = dlsym(g_nvml.lib, "nvmlShutdown");
    *(void **)&g_nvml.clock = dlsym(g_nvml.lib, "nvmlDeviceGetClockInfo");
    *(void **)&g_nvml.power = dlsym(g_nvml.lib, "nvmlDeviceGetPowerUsage");
    *(void **)&g_nvml.temp = dlsym(g_nvml.lib, "nvmlDeviceGetTemperature");
    /* renamed in newer drivers; both have the same signature */
    *(void **)&g_nvml.reasons = dlsym(g_nvml.lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!g_nvml.reasons)
        *(void **)&g_nvml.reasons = dlsym(g_nvml.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!init || !by_bus || !g_nvml.clock || !g_nvml.power || !g_nvml.temp || init() != 0 ||
        cudaDeviceGetPCIBusId(bus, (int)sizeof bus, cuda_device) != cudaSuccess ||
        by_bus(bus, &g_nvml.dev) != 0) {
        snprintf(note, len, "NVML loaded but unusable for CUDA device %d: no telemetry logged", cuda_device);
        if (init && g_nvml.shutdown) g_nvml.shutdown();
        dlclose(g_nvml.lib);
        memset(&g_nvml, 0, sizeof g_nvml);
        return 0;
    }
    if (drv && drv(g_nvml.driver, sizeof g_nvml.driver) != 0) g_nvml.driver[0] = 0;
    snprintf(note, len, "NVML %s", g_nvml.driver);
    return 1;
}

bench_tel bench_tel_sample(void) {
    bench_tel t;
    unsigned v;
    memset(&t, 0, sizeof t);
    if (!g_nvml.lib) return t;
    t.valid = 1;
    if (g_nvml.clock(g_nvml.dev, NVML_CLOCK_SM, &v) == 0) t.sm_mhz = v;
    if (g_nvml.clock(g_nvml.dev, NVML_CLOCK_MEM, &v) == 0) t.mem_mhz = v;
    if (g_nvml.power(g_nvml.dev, &v) == 0) t.power_w = v / 1000.0;
    if (g_nvml.temp(g_nvml.dev, NVML_TEMPERATURE_GPU, &v) == 0) t.temp_c = v;
    if (g_nvml.reasons) g_nvml.reasons(g_nvml.dev, &t.throttle);
    return t;
}

const char *bench_tel_driver(void) { return g_nvml.driver; }

void bench_tel_close(void) {
    if (!g_nvml.lib) return;
    if (g_nvml.shutdown) g_nvml.shutdown();
    dlclose(g_nvml.lib);
    memset(&g_nvml, 0, sizeof g_nvml);
}
