/*
 * Programs: creation in the shared real context, build / compile / link, binaries.
 *
 * Design note. A build can take seconds, and the per-client service thread must keep serving the
 * client meanwhile (other threads of the application, info queries, releases). Build and compile
 * therefore run on a detached worker thread that owns private copies of everything it needs: a
 * real reference to the program (and to embedded headers), the real device list, the options.
 * The worker never touches the session's handle table (only the service thread may); it only
 * answers the reply slot or sends a notification, both safe from any thread while it holds a
 * session reference.
 *
 * program_build_real() is the one function where a program is handed to the device compiler.
 * Under the fair policy it also has the JIT build an elastic twin of a program built from source
 * (elastic.h); the native build stays the program the application sees. Programs from binaries or
 * IL, and clCompileProgram / clLinkProgram, stay native.
 *
 * Every build is made with argument info (-cl-kernel-arg-info appended) so the kernel area can
 * describe arguments to the client, which validates clSetKernelArg without a round trip.
 *
 * Link runs on the service thread: the new program's handle must be registered by that thread,
 * and a real link of compiled objects is short compared with a compile. Its callback is run by
 * the client once the reply is in (token is ignored here).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/wire_program.h"
#include "elastic.h"
#include "ops.h"
#include "policy.h"
#include "vendor.h"

#define ARG_INFO_OPTION "-cl-kernel-arg-info"
#define MAX_BUILD_INPUTS 4096u

/* Daemon-side state of a program handle (its extra), shared with a running build worker. */
struct prog_state {
    _Atomic int refs;
    _Atomic bool building;
    pthread_mutex_t lock;             /* guards twin: the build worker replaces it */
    struct aos_elastic_program *twin; /* fair policy: the rewritten build, NULL when native */
};

static struct prog_state *prog_state_new(void)
{
    struct prog_state *st = calloc(1, sizeof(*st));
    if (st) {
        atomic_store(&st->refs, 1);
        pthread_mutex_init(&st->lock, NULL);
    }
    return st;
}

static void prog_state_unref(struct prog_state *st)
{
    if (st && atomic_fetch_sub(&st->refs, 1) == 1) {
        aos_elastic_program_unref(st->twin);
        pthread_mutex_destroy(&st->lock);
        free(st);
    }
}

/* Installs the twin of the latest build (NULL: native), dropping the previous one; kernels made
 * from an earlier twin keep their own real references. */
static void prog_state_set_twin(struct prog_state *st, struct aos_elastic_program *twin)
{
    pthread_mutex_lock(&st->lock);
    struct aos_elastic_program *old = st->twin;
    st->twin = twin;
    pthread_mutex_unlock(&st->lock);
    aos_elastic_program_unref(old);
}

struct aos_elastic_program *aos_program_twin(struct aos_session *s, uint64_t program_id)
{
    struct aos_handle *h = aos_handles_find(&s->handles, program_id, AOS_OBJ_PROGRAM);
    struct prog_state *st = h ? h->extra : NULL;
    if (!st)
        return NULL;
    pthread_mutex_lock(&st->lock);
    struct aos_elastic_program *twin = st->twin;
    if (twin)
        aos_elastic_program_ref(twin);
    pthread_mutex_unlock(&st->lock);
    return twin;
}

static void program_dtor(struct aos_handle *h)
{
    if (h->object)
        NATIVE(h->object, clReleaseProgram)(h->object);
    prog_state_unref(h->extra);
}

/* Registers a freshly created real program under id. Returns 0 or -EPROTO (the program is then
 * released). */
static int program_register(struct aos_session *s, uint64_t id, cl_program prog)
{
    struct prog_state *st = prog_state_new();
    if (!st || aos_handles_add(&s->handles, id, AOS_OBJ_PROGRAM, prog, st) < 0) {
        free(st);
        NATIVE(prog, clReleaseProgram)(prog);
        return -EPROTO;
    }
    return 0;
}

/* Resolves n device wire ids into real devices. Returns CL_SUCCESS or CL_INVALID_DEVICE. */
static cl_int devices_resolve(const uint64_t *ids, uint32_t n, cl_device_id *out)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct aos_device *d = aos_device_by_id(ids[i]);
        if (!d)
            return CL_INVALID_DEVICE;
        out[i] = d->device;
    }
    return CL_SUCCESS;
}

/* A bulk part of a request: inline bytes in the tail, or a staging span. NULL when malformed. */
static const void *blob_take(struct aos_session *s, struct aos_tail *tail, struct aos_span span, uint64_t len)
{
    if (span.len == 0)
        return aos_tail_take(tail, len);
    if (len > span.len)
        return NULL;
    return aos_session_span(s, span);
}

/* Copies options and appends the argument-info option. Returns a malloc'ed string or NULL. */
static char *options_with_arg_info(const char *opts, size_t len, bool add_arg_info)
{
    size_t extra = add_arg_info ? sizeof(ARG_INFO_OPTION) + 1 : 1;
    char *out = malloc(len + extra);
    if (!out)
        return NULL;
    memcpy(out, opts, len);
    out[len] = '\0';
    /* NULs inside the client's bytes would just cut the options short; nothing else to check. */
    size_t used = strlen(out);
    if (add_arg_info && !strstr(out, ARG_INFO_OPTION)) {
        if (used)
            out[used++] = ' ';
        memcpy(out + used, ARG_INFO_OPTION, sizeof(ARG_INFO_OPTION));
    }
    return out;
}

/* ---- Creation ----------------------------------------------------------------------------- */

static int create_from_blob(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, bool il)
{
    const struct aos_req_create_program_blob *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    const void *bytes = blob_take(s, &tail, r->span, r->len);
    if (!bytes)
        return -EPROTO;
    if (aos_handles_find(&s->handles, r->id, AOS_OBJ_NONE))
        return -EPROTO;
    cl_context ctx = aos_context_lookup(s, r->context);
    if (!ctx) {
        aos_reply_status(s, slot, CL_INVALID_CONTEXT);
        return 0;
    }
    cl_int err = CL_SUCCESS;
    cl_program prog = NULL;
    if (il) {
        if (!NATIVE(ctx, clCreateProgramWithIL))
            err = CL_INVALID_OPERATION;
        else
            prog = NATIVE(ctx, clCreateProgramWithIL)(ctx, bytes, (size_t)r->len, &err);
    } else {
        const char *src = bytes;
        size_t n = (size_t)r->len;
        prog = NATIVE(ctx, clCreateProgramWithSource)(ctx, 1, &src, &n, &err);
    }
    if (err == CL_SUCCESS && program_register(s, r->id, prog) < 0)
        return -EPROTO;
    aos_reply_status(s, slot, err);
    return 0;
}

static int op_create_source(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return create_from_blob(s, slot, payload, len, false);
}

static int op_create_il(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return create_from_blob(s, slot, payload, len, true);
}

static int op_create_binary(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_program_binary *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    uint32_t n = r->num_devices;
    if (n == 0 || n > AOS_MAX_DEVICES)
        return -EPROTO;
    const uint64_t *ids = aos_tail_take(&tail, (uint64_t)n * sizeof(uint64_t));
    const uint64_t *lens = aos_tail_take(&tail, (uint64_t)n * sizeof(uint64_t));
    if (!ids || !lens)
        return -EPROTO;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (lens[i] > UINT32_MAX)
            return -EPROTO;
        total += lens[i];
    }
    const uint8_t *bytes = blob_take(s, &tail, r->span, total);
    if (!bytes || aos_handles_find(&s->handles, r->id, AOS_OBJ_NONE))
        return -EPROTO;
    uint32_t cap = 0;
    cl_int *status = aos_reply_payload(s, slot, &cap);
    if (!status || cap < n * sizeof(cl_int))
        return -EPROTO;
    for (uint32_t i = 0; i < n; i++)
        status[i] = CL_INVALID_VALUE;
    cl_context ctx = aos_context_lookup(s, r->context);
    cl_device_id devs[AOS_MAX_DEVICES];
    const unsigned char *bins[AOS_MAX_DEVICES];
    size_t sizes[AOS_MAX_DEVICES];
    cl_int err = ctx ? devices_resolve(ids, n, devs) : CL_INVALID_CONTEXT;
    cl_program prog = NULL;
    if (err == CL_SUCCESS) {
        uint64_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            sizes[i] = (size_t)lens[i];
            bins[i] = bytes + at;
            at += lens[i];
        }
        cl_int st[AOS_MAX_DEVICES];
        prog = NATIVE(ctx, clCreateProgramWithBinary)(ctx, n, devs, sizes, bins, st, &err);
        memcpy(status, st, n * sizeof(cl_int));
    }
    if (err == CL_SUCCESS && program_register(s, r->id, prog) < 0)
        return -EPROTO;
    aos_reply(s, slot, err, 0, 0, n * (uint32_t)sizeof(cl_int));
    return 0;
}

static int op_create_builtin(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_program_builtin *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    if (r->num_devices == 0 || r->num_devices > AOS_MAX_DEVICES)
        return -EPROTO;
    const uint64_t *ids = aos_tail_take(&tail, (uint64_t)r->num_devices * sizeof(uint64_t));
    const char *names = aos_tail_take(&tail, r->names_len);
    if (!ids || !names || aos_handles_find(&s->handles, r->id, AOS_OBJ_NONE))
        return -EPROTO;
    cl_context ctx = aos_context_lookup(s, r->context);
    cl_device_id devs[AOS_MAX_DEVICES];
    cl_int err = ctx ? devices_resolve(ids, r->num_devices, devs) : CL_INVALID_CONTEXT;
    cl_program prog = NULL;
    char *copy = NULL;
    if (err == CL_SUCCESS && !(copy = strndup(names, r->names_len)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS)
        prog = NATIVE(ctx, clCreateProgramWithBuiltInKernels)(ctx, r->num_devices, devs, copy, &err);
    free(copy);
    if (err == CL_SUCCESS && program_register(s, r->id, prog) < 0)
        return -EPROTO;
    aos_reply_status(s, slot, err);
    return 0;
}

/* ---- Build and compile -------------------------------------------------------------------- */

struct build_job {
    struct aos_session *s;
    uint32_t slot;
    uint32_t opcode;          /* AOS_OP_BUILD_PROGRAM or AOS_OP_COMPILE_PROGRAM */
    uint64_t program_id;
    uint64_t token;
    cl_program program;       /* one real reference */
    struct prog_state *state; /* one reference */
    cl_uint num_devices;
    cl_device_id devices[AOS_MAX_DEVICES];
    char *options;            /* with the argument-info option added */
    char *app_options;        /* as the application gave them (the JIT's cache key) */
    cl_uint num_headers;
    cl_program *headers;      /* one real reference each */
    char **header_names;      /* point into names */
    char *names;
};

static void build_job_free(struct build_job *job)
{
    for (cl_uint i = 0; i < job->num_headers; i++)
        if (job->headers[i])
            NATIVE(job->headers[i], clReleaseProgram)(job->headers[i]);
    free(job->headers);
    free(job->header_names);
    free(job->names);
    free(job->options);
    free(job->app_options);
    if (job->program)
        NATIVE(job->program, clReleaseProgram)(job->program);
    prog_state_unref(job->state);
    free(job);
}

/* Starts the elastic twin's JIT compile for a build under the fair policy, or returns NULL. */
static struct aos_elastic_job *twin_start(struct build_job *job)
{
    if (!aos_policy_is_fair() || job->opcode != AOS_OP_BUILD_PROGRAM)
        return NULL;
    cl_program p = job->program;
    cl_uint n = job->num_devices;
    cl_device_id all[AOS_MAX_DEVICES];
    const cl_device_id *devs = job->devices;
    if (n == 0) {
        /* No list: the build covers every device of the program, and so must the twin. */
        if (NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_NUM_DEVICES, sizeof(n), &n, NULL) != CL_SUCCESS ||
            n == 0 || n > AOS_MAX_DEVICES ||
            NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), all, NULL) != CL_SUCCESS)
            return NULL;
        devs = all;
    }
    return aos_elastic_job_start(p, n, devs, job->app_options);
}

/*
 * Hands a program to the device compiler. This is the single point where every program of every
 * client passes on its way to the device. Under the fair policy the JIT compiles the same source
 * and options meanwhile, and the rewritten build becomes the program's twin; the native build is
 * still made, so what the application sees (status, log, binaries, kernels) is the native one.
 */
static cl_int program_build_real(struct build_job *job)
{
    cl_program p = job->program;
    const cl_device_id *devs = job->num_devices ? job->devices : NULL;
    if (job->opcode == AOS_OP_COMPILE_PROGRAM) {
        prog_state_set_twin(job->state, NULL);
        return NATIVE(p, clCompileProgram)(p, job->num_devices, devs, job->options, job->num_headers,
                                           job->headers, (const char **)job->header_names, NULL, NULL);
    }
    struct aos_elastic_job *twin_job = twin_start(job);
    cl_int err = NATIVE(p, clBuildProgram)(p, job->num_devices, devs, job->options, NULL, NULL);
    prog_state_set_twin(job->state, aos_elastic_job_finish(twin_job, err == CL_SUCCESS));
    return err;
}

static void *build_worker(void *arg)
{
    struct build_job *job = arg;
    cl_int err = program_build_real(job);
    atomic_store(&job->state->building, false);
    aos_log(AOS_LOG_DEBUG, "program", "client %llu: program %llu built: %d", (unsigned long long)job->s->serial,
            (unsigned long long)job->program_id, err);
    if (job->token) {
        struct aos_note_build_done note = {.program = job->program_id, .token = job->token};
        aos_note_send(job->s, AOS_NOTE_BUILD_DONE, &note, sizeof(note));
    } else {
        aos_reply_status(job->s, job->slot, err);
    }
    struct aos_session *s = job->s;
    build_job_free(job);
    aos_session_unref(s);
    return NULL;
}

/* Splits names_len bytes of NUL-terminated names into n strings. Returns false if malformed. */
static bool split_names(struct build_job *job, const char *bytes, uint32_t len, uint32_t n)
{
    if (!(job->names = malloc((size_t)len + 1)) || !(job->header_names = calloc(n ? n : 1, sizeof(char *))))
        return false;
    memcpy(job->names, bytes, len);
    job->names[len] = '\0';
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (at >= len)
            return false;
        job->header_names[i] = job->names + at;
        at += (uint32_t)strlen(job->names + at) + 1;
        if (at > len)
            return false;
    }
    return true;
}

static int op_build_or_compile(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len,
                               uint32_t opcode)
{
    const struct aos_req_build *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    bool compile = opcode == AOS_OP_COMPILE_PROGRAM;
    if (r->num_devices > AOS_MAX_DEVICES || r->num_inputs > MAX_BUILD_INPUTS || (!compile && r->num_inputs))
        return -EPROTO;
    const uint64_t *ids = aos_tail_take(&tail, (uint64_t)r->num_devices * sizeof(uint64_t));
    const uint64_t *inputs = aos_tail_take(&tail, (uint64_t)r->num_inputs * sizeof(uint64_t));
    const char *text = blob_take(s, &tail, r->span, (uint64_t)r->options_len + r->names_len);
    if (!ids || !inputs || !text)
        return -EPROTO;

    struct aos_handle *h = aos_handles_find(&s->handles, r->program, AOS_OBJ_PROGRAM);
    if (!h) {
        aos_reply_status(s, slot, CL_INVALID_PROGRAM);
        return 0;
    }
    struct prog_state *st = h->extra;
    struct build_job *job = calloc(1, sizeof(*job));
    if (!job) {
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    *job = (struct build_job){.s = s, .slot = slot, .opcode = opcode, .program_id = r->program,
                              .token = r->token, .num_devices = r->num_devices};
    cl_int err = devices_resolve(ids, r->num_devices, job->devices);
    if (err == CL_SUCCESS && (!(job->options = options_with_arg_info(text, r->options_len, true)) ||
                              !(job->app_options = options_with_arg_info(text, r->options_len, false))))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS && compile && !split_names(job, text + r->options_len, r->names_len, r->num_inputs)) {
        build_job_free(job);
        return -EPROTO;
    }
    if (err == CL_SUCCESS && r->num_inputs) {
        if (!(job->headers = calloc(r->num_inputs, sizeof(cl_program))))
            err = CL_OUT_OF_HOST_MEMORY;
        for (uint32_t i = 0; err == CL_SUCCESS && i < r->num_inputs; i++) {
            cl_program hp = aos_handles_object(&s->handles, inputs[i], AOS_OBJ_PROGRAM);
            if (!hp) {
                err = CL_INVALID_OPERATION; /* the spec's code for an invalid header program */
                break;
            }
            NATIVE(hp, clRetainProgram)(hp);
            job->headers[job->num_headers++] = hp;
        }
    }
    bool expected = false;
    if (err == CL_SUCCESS && !atomic_compare_exchange_strong(&st->building, &expected, true))
        err = CL_INVALID_OPERATION; /* a build of this program is still running */
    if (err != CL_SUCCESS) {
        build_job_free(job);
        aos_reply_status(s, slot, err);
        return 0;
    }
    job->program = h->object;
    NATIVE(job->program, clRetainProgram)(job->program);
    atomic_fetch_add(&st->refs, 1);
    job->state = st;

    aos_session_ref(s);
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&thread, &attr, build_worker, job);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        atomic_store(&st->building, false);
        build_job_free(job);
        aos_session_unref(s);
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    if (r->token)
        aos_reply_status(s, slot, CL_SUCCESS); /* the client's callback runs on AOS_NOTE_BUILD_DONE */
    return 0;
}

static int op_build(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return op_build_or_compile(s, slot, payload, len, AOS_OP_BUILD_PROGRAM);
}

static int op_compile(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return op_build_or_compile(s, slot, payload, len, AOS_OP_COMPILE_PROGRAM);
}

static int op_link(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_build *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    if (r->num_devices > AOS_MAX_DEVICES || r->num_inputs == 0 || r->num_inputs > MAX_BUILD_INPUTS ||
        r->names_len)
        return -EPROTO;
    const uint64_t *ids = aos_tail_take(&tail, (uint64_t)r->num_devices * sizeof(uint64_t));
    const uint64_t *inputs = aos_tail_take(&tail, (uint64_t)r->num_inputs * sizeof(uint64_t));
    const char *text = blob_take(s, &tail, r->span, r->options_len);
    if (!ids || !inputs || !text || aos_handles_find(&s->handles, r->program, AOS_OBJ_NONE))
        return -EPROTO;
    cl_context ctx = aos_context_lookup(s, r->context);
    cl_device_id devs[AOS_MAX_DEVICES];
    cl_int err = ctx ? devices_resolve(ids, r->num_devices, devs) : CL_INVALID_CONTEXT;
    cl_program *progs = NULL;
    char *options = NULL;
    if (err == CL_SUCCESS && (!(progs = calloc(r->num_inputs, sizeof(cl_program))) ||
                              !(options = options_with_arg_info(text, r->options_len, false))))
        err = CL_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; err == CL_SUCCESS && i < r->num_inputs; i++)
        if (!(progs[i] = aos_handles_object(&s->handles, inputs[i], AOS_OBJ_PROGRAM)))
            err = CL_INVALID_PROGRAM;
    cl_program prog = NULL;
    if (err == CL_SUCCESS)
        prog = NATIVE(ctx, clLinkProgram)(ctx, r->num_devices, r->num_devices ? devs : NULL, options,
                                          r->num_inputs, progs, NULL, NULL, &err);
    free(progs);
    free(options);
    uint64_t created = 0;
    if (prog) {
        if (program_register(s, r->program, prog) < 0)
            return -EPROTO;
        created = 1;
    }
    aos_reply(s, slot, err, created, 0, 0);
    return 0;
}

/* ---- Binaries ------------------------------------------------------------------------------ */

static int op_get_binary(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)len;
    const struct aos_req_program_binary *r = payload;
    uint8_t *dst = r->span.len ? aos_session_span(s, r->span) : NULL;
    if (r->span.len && !dst)
        return -EPROTO;
    cl_program p = aos_handles_object(&s->handles, r->program, AOS_OBJ_PROGRAM);
    const struct aos_device *d = aos_device_by_id(r->device);
    if (!p || !d) {
        aos_reply_status(s, slot, !p ? CL_INVALID_PROGRAM : CL_INVALID_DEVICE);
        return 0;
    }
    cl_uint n = 0;
    cl_int err = NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_NUM_DEVICES, sizeof(n), &n, NULL);
    if (err == CL_SUCCESS && (n == 0 || n > AOS_MAX_DEVICES))
        err = CL_OUT_OF_RESOURCES;
    cl_device_id devs[AOS_MAX_DEVICES];
    size_t sizes[AOS_MAX_DEVICES];
    if (err == CL_SUCCESS)
        err = NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), devs, NULL);
    if (err == CL_SUCCESS)
        err = NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_BINARY_SIZES, n * sizeof(size_t), sizes, NULL);
    cl_uint idx = n;
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++)
        if (devs[i] == d->device)
            idx = i;
    if (err == CL_SUCCESS && idx == n)
        err = CL_INVALID_DEVICE;
    uint64_t total = err == CL_SUCCESS ? sizes[idx] : 0, copied = 0;
    if (err == CL_SUCCESS && total && r->offset < total && r->span.len) {
        unsigned char *bin = malloc(total);
        unsigned char *ptrs[AOS_MAX_DEVICES] = {0};
        ptrs[idx] = bin;
        if (!bin)
            err = CL_OUT_OF_HOST_MEMORY;
        else
            err = NATIVE(p, clGetProgramInfo)(p, CL_PROGRAM_BINARIES, n * sizeof(unsigned char *), ptrs, NULL);
        if (err == CL_SUCCESS) {
            copied = total - r->offset < r->span.len ? total - r->offset : r->span.len;
            memcpy(dst, bin + r->offset, copied);
        }
        free(bin);
    }
    aos_reply(s, slot, err, total, copied, 0);
    return 0;
}

static int op_unload_compiler(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    /* A hint only; the compiler is shared with every other client, so it stays loaded. */
    (void)payload, (void)len;
    if (slot != AOS_NO_SLOT)
        aos_reply_status(s, slot, CL_SUCCESS);
    return 0;
}

void aos_ops_program_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_PROGRAM, program_dtor);
}

const struct aos_op_entry aos_ops_program[] = {
    {AOS_OP_CREATE_PROGRAM_SOURCE, sizeof(struct aos_req_create_program_blob), true, op_create_source,
     "create_program_source"},
    {AOS_OP_CREATE_PROGRAM_BINARY, sizeof(struct aos_req_create_program_binary), true, op_create_binary,
     "create_program_binary"},
    {AOS_OP_CREATE_PROGRAM_IL, sizeof(struct aos_req_create_program_blob), true, op_create_il, "create_program_il"},
    {AOS_OP_CREATE_PROGRAM_BUILTIN, sizeof(struct aos_req_create_program_builtin), true, op_create_builtin,
     "create_program_builtin"},
    {AOS_OP_BUILD_PROGRAM, sizeof(struct aos_req_build), true, op_build, "build_program"},
    {AOS_OP_COMPILE_PROGRAM, sizeof(struct aos_req_build), true, op_compile, "compile_program"},
    {AOS_OP_LINK_PROGRAM, sizeof(struct aos_req_build), true, op_link, "link_program"},
    {AOS_OP_GET_PROGRAM_BINARY, sizeof(struct aos_req_program_binary), true, op_get_binary, "get_program_binary"},
    {AOS_OP_UNLOAD_COMPILER, 0, false, op_unload_compiler, "unload_compiler"},
    {0, 0, false, NULL, NULL},
};
