/*
 * Elastic twins: JIT compile of a program's source next to its native build, and the twin's
 * kernels (see elastic.h).
 *
 * Design note. The native build stays what the application sees, so every program and kernel
 * query, a build error and its log are exactly the native ones; the twin only changes what runs.
 * The JIT compile runs on a helper thread while the native build runs on the build worker (the
 * JIT front end is a separate process, so the two overlap); the twin is loaded and built only
 * when the native build succeeded. A twin failure of any kind leaves the program native: a
 * genuine error in the source has already been reported by the native build.
 */
#include "elastic.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/jit.h"
#include "accelos/log.h"
#include "accelos/nv_regs.h"
#include "accelos/vndrange.h"
#include "accelos/wire_core.h"
#include "launch.h"

#define NV_COMPUTE_CAPABILITY_MAJOR 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */
#define NV_COMPUTE_CAPABILITY_MINOR 0x4001
#define FNV1A64_INIT 0xcbf29ce484222325ull

/* FNV-1a over n bytes, continuing from h (FNV1A64_INIT to start): the code keys of estimates. */
static uint64_t fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t aos_elastic_estimate_key(const struct aos_elastic_kernel *ek, const size_t local[3])
{
    uint64_t geometry[3] = { local[0], local[1], local[2] };
    uint64_t key = fnv1a64(ek->code_key, geometry, sizeof(geometry));
    return key ? key : 1; /* 0 marks an empty slot */
}

struct twin_kernel_info {
    char *name;
    bool rewritten;
    unsigned runtime_args;
    unsigned chunk;           /* compiled virtual groups per dequeue */
    uint32_t regs_per_thread; /* from the verbose NVIDIA build log; 0 = not reported */
};

struct aos_elastic_program {
    _Atomic int refs;
    cl_program program; /* the rewritten build: one reference */
    uint64_t code_hash; /* of the rewritten module's bytes */
    size_t num_kernels;
    struct twin_kernel_info *kernels;
};

struct aos_elastic_job {
    pthread_t thread;
    bool threaded;
    _Atomic int ends;         /* compile done + caller done: the second one frees the job */
    cl_context context;
    cl_uint num_devices;
    cl_device_id devices[AOS_MAX_DEVICES];
    enum aos_jit_target target;
    unsigned nv_sm;
    bool no_direct;           /* none of the devices runs the direct shape: no twins */
    char *source;
    size_t source_len;
    char *options;
    int rc;
    struct aos_jit_result *result;
};

/* ---- Target ------------------------------------------------------------------------------- */

/* A device string, malloc'ed; NULL when the device does not report it. */
static char *device_string(cl_device_id dev, cl_device_info param)
{
    size_t size = 0;
    if (NATIVE(dev, clGetDeviceInfo)(dev, param, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return NULL;
    char *s = malloc(size + 1);
    if (s && NATIVE(dev, clGetDeviceInfo)(dev, param, size, s, NULL) != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    if (s)
        s[size] = '\0';
    return s;
}

static enum aos_jit_target device_target(cl_device_id dev, unsigned *nv_sm)
{
    char *vendor = device_string(dev, CL_DEVICE_VENDOR);
    char *ext = device_string(dev, CL_DEVICE_EXTENSIONS);
    char *il = device_string(dev, CL_DEVICE_IL_VERSION);
    struct aos_jit_device_desc desc = {.vendor = vendor, .extensions = ext, .il_version = il};
    cl_uint major = 0, minor = 0;
    if (vendor && strstr(vendor, "NVIDIA") &&
        NATIVE(dev, clGetDeviceInfo)(dev, NV_COMPUTE_CAPABILITY_MAJOR, sizeof(major), &major, NULL) == CL_SUCCESS &&
        NATIVE(dev, clGetDeviceInfo)(dev, NV_COMPUTE_CAPABILITY_MINOR, sizeof(minor), &minor, NULL) == CL_SUCCESS)
        desc.nv_sm = major * 10 + minor;
    enum aos_jit_target t = aos_jit_target_for_device(&desc);
    *nv_sm = desc.nv_sm;
    free(vendor);
    free(ext);
    free(il);
    return t;
}

/* ---- Compile ------------------------------------------------------------------------------ */

static void job_free(struct aos_elastic_job *job)
{
    aos_jit_result_destroy(job->result);
    free(job->source);
    free(job->options);
    free(job);
}

/* Called by the compile and by the caller when each is done with the job. */
static void job_end(struct aos_elastic_job *job)
{
    if (atomic_fetch_add(&job->ends, 1) == 1)
        job_free(job);
}

static void *job_compile(void *arg)
{
    struct aos_elastic_job *job = arg;
    struct aos_jit_options opt = {
        .target = job->target, .build_options = job->options, .nv_sm = job->nv_sm, .no_direct = job->no_direct};
    job->rc = aos_jit_compile(job->source, job->source_len, &opt, &job->result);
    job_end(job);
    return NULL;
}

/* The program's source, malloc'ed; NULL when it was not created from source. */
static char *program_source(cl_program prog, size_t *len)
{
    size_t size = 0;
    if (NATIVE(prog, clGetProgramInfo)(prog, CL_PROGRAM_SOURCE, 0, NULL, &size) != CL_SUCCESS || size <= 1)
        return NULL;
    char *src = malloc(size);
    if (src && NATIVE(prog, clGetProgramInfo)(prog, CL_PROGRAM_SOURCE, size, src, NULL) != CL_SUCCESS) {
        free(src);
        return NULL;
    }
    *len = strnlen(src, size);
    return src;
}

struct aos_elastic_job *aos_elastic_job_start(cl_program prog, cl_uint n, const cl_device_id *devs,
                                              const char *options)
{
    if (n == 0 || n > AOS_MAX_DEVICES)
        return NULL;
    struct aos_elastic_job *job = calloc(1, sizeof(*job));
    if (!job)
        return NULL;
    job->num_devices = n;
    memcpy(job->devices, devs, n * sizeof(cl_device_id));
    /* One module serves every device, so they must agree on the target. */
    job->target = device_target(devs[0], &job->nv_sm);
    for (cl_uint i = 1; i < n && job->target != AOS_JIT_TARGET_NONE; i++) {
        unsigned sm = 0;
        if (device_target(devs[i], &sm) != job->target || sm != job->nv_sm)
            job->target = AOS_JIT_TARGET_NONE;
    }
    if (job->target == AOS_JIT_TARGET_NONE ||
        NATIVE(prog, clGetProgramInfo)(prog, CL_PROGRAM_CONTEXT, sizeof(job->context), &job->context, NULL) !=
            CL_SUCCESS ||
        !(job->source = program_source(prog, &job->source_len)) || !(job->options = strdup(options ? options : ""))) {
        if (job->target == AOS_JIT_TARGET_NONE)
            aos_log(AOS_LOG_INFO, "elastic", "no JIT target for the device: program stays native");
        job_free(job);
        return NULL;
    }
    job->no_direct = true;
    for (cl_uint i = 0; i < n; i++)
        job->no_direct = job->no_direct && !aos_launch_device_runs_direct(devs[i]);
    job->threaded = pthread_create(&job->thread, NULL, job_compile, job) == 0;
    if (!job->threaded)
        job_compile(job); /* no thread to spare: compile before the native build instead */
    return job;
}

/* ---- Twin program ------------------------------------------------------------------------- */

void aos_elastic_program_ref(struct aos_elastic_program *ep)
{
    atomic_fetch_add(&ep->refs, 1);
}

void aos_elastic_program_unref(struct aos_elastic_program *ep)
{
    if (!ep || atomic_fetch_sub(&ep->refs, 1) != 1)
        return;
    for (size_t i = 0; i < ep->num_kernels; i++)
        free(ep->kernels[i].name);
    free(ep->kernels);
    if (ep->program)
        NATIVE(ep->program, clReleaseProgram)(ep->program);
    free(ep);
}

/* Creates the real program from the rewritten module. */
static cl_program twin_create(const struct aos_elastic_job *job, cl_int *err)
{
    const struct aos_jit_result *res = job->result;
    cl_context ctx = job->context;
    if (job->target == AOS_JIT_TARGET_SPIRV) {
        if (!NATIVE(ctx, clCreateProgramWithIL)) {
            *err = CL_INVALID_OPERATION;
            return NULL;
        }
        return NATIVE(ctx, clCreateProgramWithIL)(ctx, res->binary, res->binary_size, err);
    }
    const unsigned char *bins[AOS_MAX_DEVICES];
    size_t sizes[AOS_MAX_DEVICES];
    for (cl_uint i = 0; i < job->num_devices; i++) {
        bins[i] = res->binary;
        sizes[i] = res->binary_size;
    }
    return NATIVE(ctx, clCreateProgramWithBinary)(ctx, job->num_devices, job->devices, sizes, bins, NULL, err);
}

/* The twin's build log for dev, malloc'ed, with its size; NULL when there is none. */
static char *twin_build_log(cl_program prog, cl_device_id dev, size_t *len)
{
    size_t size = 0;
    if (NATIVE(prog, clGetProgramBuildInfo)(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
        size == 0)
        return NULL;
    char *log = malloc(size);
    if (log && NATIVE(prog, clGetProgramBuildInfo)(prog, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    *len = size; /* the parser stops at the NUL and never reads past size */
    return log;
}

/*
 * Registers per thread of each rewritten kernel, where the vendor reports them: NVIDIA's build log
 * of a program built with -cl-nv-verbose carries ptxas's "Used N registers" per entry function
 * (accelos/nv_regs.h). The largest count over the devices is kept: a twin kernel runs on one
 * device (twin_kernel_describe), and for several the largest is the safe one. Kernels without a
 * count keep 0: registers do not bind for them.
 */
static void twin_read_registers(struct aos_elastic_program *ep, const struct aos_elastic_job *job)
{
    for (cl_uint d = 0; d < job->num_devices; d++) {
        size_t len = 0;
        char *log = twin_build_log(ep->program, job->devices[d], &len);
        for (size_t i = 0; log && i < ep->num_kernels; i++) {
            struct twin_kernel_info *ki = &ep->kernels[i];
            uint32_t regs = ki->rewritten ? aos_nv_regs_from_log(log, len, ki->name) : 0;
            if (regs > ki->regs_per_thread)
                ki->regs_per_thread = regs;
        }
        free(log);
    }
    for (size_t i = 0; i < ep->num_kernels; i++)
        if (ep->kernels[i].rewritten)
            aos_log(AOS_LOG_DEBUG, "elastic", "kernel %s: %u registers per thread on sm_%u%s", ep->kernels[i].name,
                    ep->kernels[i].regs_per_thread, job->nv_sm,
                    ep->kernels[i].regs_per_thread ? "" : " (not in the build log: registers do not bind)");
}

static struct aos_elastic_program *twin_from_result(struct aos_elastic_job *job)
{
    const struct aos_jit_result *res = job->result;
    struct aos_elastic_program *ep = calloc(1, sizeof(*ep));
    if (!ep || !(ep->kernels = calloc(res->num_kernels ? res->num_kernels : 1, sizeof(*ep->kernels)))) {
        free(ep);
        return NULL;
    }
    atomic_init(&ep->refs, 1);
    size_t rewritten = 0;
    for (size_t i = 0; i < res->num_kernels; i++) {
        const struct aos_jit_kernel *k = &res->kernels[i];
        struct twin_kernel_info *ki = &ep->kernels[ep->num_kernels];
        if (!(ki->name = strdup(k->name))) {
            aos_elastic_program_unref(ep);
            return NULL;
        }
        ep->num_kernels++;
        ki->rewritten = k->rewritten != 0;
        ki->runtime_args = k->runtime_args;
        ki->chunk = k->chunk;
        if (k->rewritten)
            rewritten++;
        else
            aos_log(AOS_LOG_INFO, "elastic", "kernel %s stays native: %s", k->name, k->reason ? k->reason : "?");
    }
    if (rewritten == 0) {
        aos_elastic_program_unref(ep);
        return NULL; /* nothing would ever launch elastically: skip the second device build */
    }
    ep->code_hash = fnv1a64(FNV1A64_INIT, res->binary, res->binary_size);
    /* On NVIDIA the verbose build log reports each kernel's registers (twin_read_registers). */
    bool nv = job->target == AOS_JIT_TARGET_NVPTX64;
    cl_int err = CL_SUCCESS;
    ep->program = twin_create(job, &err);
    if (err == CL_SUCCESS)
        err = NATIVE(ep->program, clBuildProgram)(ep->program, job->num_devices, job->devices,
                                                  nv ? "-cl-nv-verbose" : "", NULL, NULL);
    if (err == CL_INVALID_BUILD_OPTIONS && nv && ep->program) {
        nv = false; /* a driver without the option: build plainly, registers stay unknown */
        err = NATIVE(ep->program, clBuildProgram)(ep->program, job->num_devices, job->devices, "", NULL, NULL);
    }
    if (err != CL_SUCCESS) {
        size_t len = 0;
        char *log = ep->program ? twin_build_log(ep->program, job->devices[0], &len) : NULL;
        aos_log(AOS_LOG_WARN, "elastic", "the device refused the rewritten %s module (%d): program stays native%s%.2000s",
                aos_jit_target_name(job->target), err, log && *log ? "; its build log:\n" : "", log ? log : "");
        free(log);
        aos_elastic_program_unref(ep);
        return NULL;
    }
    if (nv)
        twin_read_registers(ep, job);
    return ep;
}

struct aos_elastic_program *aos_elastic_job_finish(struct aos_elastic_job *job, bool native_ok)
{
    if (!job)
        return NULL;
    if (!native_ok && job->threaded) {
        /* The native build failed: its error and log are the answer, and the application need not
         * wait for a compile whose result nobody will use. The compile frees the job. */
        pthread_detach(job->thread);
        job_end(job);
        return NULL;
    }
    if (job->threaded)
        pthread_join(job->thread, NULL);
    struct aos_elastic_program *ep = NULL;
    if (native_ok && job->rc == 0) {
        ep = twin_from_result(job);
        aos_log(AOS_LOG_DEBUG, "elastic", "twin %s for %s (%s)", ep ? "built" : "not built",
                aos_jit_target_name(job->target), job->result->from_cache ? "JIT cache hit" : "compiled");
    } else if (native_ok) {
        /* The native compiler accepted what the JIT did not (options outside its allow-list, a
         * worker limit, a front-end difference): the program simply stays native. */
        aos_log(AOS_LOG_INFO, "elastic", "JIT compile failed (%s, rc %d): program stays native: %.400s",
                aos_jit_cl_error_name(job->rc), job->rc,
                job->result && job->result->build_log ? job->result->build_log : "");
    }
    job_end(job);
    return ep;
}

/* ---- Twin kernels ------------------------------------------------------------------------- */

static bool twin_kernel_describe(struct aos_elastic_kernel *ek)
{
    cl_kernel k = ek->kernel;
    cl_program p = NULL;
    cl_uint ndev = 0;
    if (NATIVE(k, clGetKernelInfo)(k, CL_KERNEL_PROGRAM, sizeof(p), &p, NULL) != CL_SUCCESS ||
        NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL) != CL_SUCCESS || ndev != 1)
        return false; /* launches find the device per queue; one device keeps that unambiguous */
    return NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_DEVICES, sizeof(ek->device), &ek->device, NULL) == CL_SUCCESS &&
           NATIVE(k, clGetKernelWorkGroupInfo)(k, ek->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(ek->wg_size),
                                               &ek->wg_size, NULL) == CL_SUCCESS &&
           NATIVE(k, clGetKernelWorkGroupInfo)(k, ek->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                               sizeof(ek->compile_wg), ek->compile_wg, NULL) == CL_SUCCESS;
}

/* The direct shape of the twin kernel `name` under `prefix` (SPIR targets; the direct or the
 * cuttable one) taking `added` arguments after the application's, or NULL: then launches use the
 * loop, or direct waves that are never cut. */
static cl_kernel direct_kernel_new(cl_program program, const char *prefix, const char *name, cl_uint num_args,
                                   cl_uint added)
{
    char direct_name[512];
    if ((size_t)snprintf(direct_name, sizeof(direct_name), "%s%s", prefix, name) >=
        sizeof(direct_name))
        return NULL;
    cl_int err = CL_SUCCESS;
    cl_uint args = 0;
    cl_kernel k = NATIVE(program, clCreateKernel)(program, direct_name, &err);
    if (err != CL_SUCCESS)
        return NULL;
    if (NATIVE(k, clGetKernelInfo)(k, CL_KERNEL_NUM_ARGS, sizeof(args), &args, NULL) != CL_SUCCESS ||
        args != num_args + added) {
        NATIVE(k, clReleaseKernel)(k);
        return NULL;
    }
    return k;
}

struct aos_elastic_kernel *aos_elastic_kernel_new(struct aos_elastic_program *ep, const char *name,
                                                  cl_uint num_args)
{
    const struct twin_kernel_info *ki = NULL;
    for (size_t i = 0; ep && i < ep->num_kernels && !ki; i++)
        if (!strcmp(ep->kernels[i].name, name))
            ki = &ep->kernels[i];
    if (!ki || !ki->rewritten)
        return NULL;
    struct aos_elastic_kernel *ek = calloc(1, sizeof(*ek));
    if (!ek)
        return NULL;
    cl_int err = CL_SUCCESS;
    cl_uint twin_args = 0;
    ek->kernel = NATIVE(ep->program, clCreateKernel)(ep->program, name, &err);
    ek->num_args = num_args;
    ek->runtime_args = ki->runtime_args;
    ek->chunk = ki->chunk;
    ek->regs_per_thread = ki->regs_per_thread;
    ek->code_key = fnv1a64(ep->code_hash, name, strlen(name) + 1);
    if (err == CL_SUCCESS)
        err = NATIVE(ek->kernel, clGetKernelInfo)(ek->kernel, CL_KERNEL_NUM_ARGS, sizeof(twin_args), &twin_args, NULL);
    if (err != CL_SUCCESS || twin_args != num_args + ki->runtime_args || ki->runtime_args != 1 ||
        !twin_kernel_describe(ek)) {
        aos_log(AOS_LOG_INFO, "elastic", "kernel %s: twin unusable (err %d, %u args for %u + %u): stays native", name,
                err, twin_args, num_args, ki->runtime_args);
        aos_elastic_kernel_destroy(ek);
        return NULL;
    }
    ek->direct = direct_kernel_new(ep->program, AOS_DIRECT_KERNEL_PREFIX, name, num_args, 1); /* the grid */
    ek->cut = ek->direct ? direct_kernel_new(ep->program, AOS_CUT_KERNEL_PREFIX, name, num_args, 2) : NULL; /* + cut */
    return ek;
}

cl_int aos_elastic_kernel_set_arg(struct aos_elastic_kernel *ek, cl_uint index, size_t size, const void *value)
{
    cl_int err = NATIVE(ek->kernel, clSetKernelArg)(ek->kernel, index, size, value);
    if (err == CL_SUCCESS && ek->direct)
        err = NATIVE(ek->direct, clSetKernelArg)(ek->direct, index, size, value);
    if (err == CL_SUCCESS && ek->cut)
        err = NATIVE(ek->cut, clSetKernelArg)(ek->cut, index, size, value);
    return err;
}

struct aos_elastic_kernel *aos_elastic_kernel_clone(const struct aos_elastic_kernel *src)
{
    if (!src || !NATIVE(src->kernel, clCloneKernel))
        return NULL;
    struct aos_elastic_kernel *ek = malloc(sizeof(*ek));
    if (!ek)
        return NULL;
    *ek = *src; /* description included: wg_size, compile_wg, regs_per_thread */
    cl_int err = CL_SUCCESS;
    ek->kernel = NATIVE(src->kernel, clCloneKernel)(src->kernel, &err);
    if (err != CL_SUCCESS) {
        free(ek);
        return NULL;
    }
    if (src->direct) {
        ek->direct = NATIVE(src->direct, clCloneKernel)(src->direct, &err);
        if (err != CL_SUCCESS)
            ek->direct = NULL; /* the clone runs in the loop shape */
    }
    ek->cut = NULL; /* only beside a direct shape */
    if (src->cut && ek->direct) {
        ek->cut = NATIVE(src->cut, clCloneKernel)(src->cut, &err);
        if (err != CL_SUCCESS)
            ek->cut = NULL; /* its waves are never cut */
    }
    return ek;
}

void aos_elastic_kernel_destroy(struct aos_elastic_kernel *ek)
{
    if (!ek)
        return;
    if (ek->kernel)
        NATIVE(ek->kernel, clReleaseKernel)(ek->kernel);
    if (ek->direct)
        NATIVE(ek->direct, clReleaseKernel)(ek->direct);
    if (ek->cut)
        NATIVE(ek->cut, clReleaseKernel)(ek->cut);
    free(ek);
}
