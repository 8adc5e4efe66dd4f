/* A daemon built without the JIT or the scheduling core: every program, kernel and launch stays
 * native (elastic.h, launch.h). */
#include "elastic.h"

#include "accelos/log.h"
#include "device_sched.h"
#include "launch.h"
#include "solo.h"

struct aos_elastic_job *aos_elastic_job_start(cl_program prog, cl_uint n, const cl_device_id *devs,
                                              const char *options)
{
    (void)prog, (void)n, (void)devs, (void)options;
    aos_log(AOS_LOG_INFO, "elastic", "built without the JIT: program stays native");
    return NULL;
}

struct aos_elastic_program *aos_elastic_job_finish(struct aos_elastic_job *job, bool native_ok)
{
    (void)job, (void)native_ok;
    return NULL;
}

void aos_elastic_program_ref(struct aos_elastic_program *ep) { (void)ep; }
void aos_elastic_program_unref(struct aos_elastic_program *ep) { (void)ep; }

struct aos_elastic_kernel *aos_elastic_kernel_new(struct aos_elastic_program *ep, const char *name,
                                                  cl_uint num_args)
{
    (void)ep, (void)name, (void)num_args;
    return NULL;
}

struct aos_elastic_kernel *aos_elastic_kernel_clone(const struct aos_elastic_kernel *ek)
{
    (void)ek;
    return NULL;
}

void aos_elastic_kernel_destroy(struct aos_elastic_kernel *ek) { (void)ek; }

bool aos_launch_target(cl_command_queue queue, const struct aos_elastic_kernel *ek,
                       const struct aos_launch_shape *shape, struct aos_launch_target *t)
{
    (void)queue, (void)ek, (void)shape, (void)t;
    return false;
}

bool aos_launch_solo(struct aos_session *s, cl_command_queue queue, struct aos_elastic_kernel *ek, cl_kernel native,
                     const struct aos_launch_shape *shape, const struct aos_launch_target *t, cl_uint num_wait,
                     const cl_event *wait, struct aos_solo_launch *out)
{
    (void)s, (void)queue, (void)ek, (void)native, (void)shape, (void)t, (void)num_wait, (void)wait, (void)out;
    return false;
}

bool aos_launch_elastic(struct aos_session *s, cl_command_queue queue, struct aos_elastic_kernel *ek,
                        const struct aos_launch_target *t, cl_uint num_wait, const cl_event *wait,
                        const struct aos_logical_held *held, uint32_t n_held, cl_event *ev,
                        struct aos_logical **logical)
{
    (void)s, (void)queue, (void)ek, (void)t, (void)num_wait, (void)wait, (void)held, (void)n_held, (void)ev,
        (void)logical;
    return false;
}

void aos_launch_command_enqueued(struct aos_session *s, cl_command_queue queue)
{
    (void)s;
    (void)queue;
}

void aos_logical_unref(struct aos_logical *l) { (void)l; }

cl_int aos_logical_profiling(struct aos_logical *l, cl_profiling_info param, size_t size, void *value,
                             size_t *size_ret)
{
    (void)l, (void)param, (void)size, (void)value, (void)size_ret;
    return CL_PROFILING_INFO_NOT_AVAILABLE;
}

cl_int aos_logical_failed(struct aos_logical *l)
{
    (void)l;
    return 0;
}

void aos_device_sched_poke(void) {}
void aos_device_sched_shutdown(void) {}
void aos_device_sched_client_gone(uint64_t client) { (void)client; }
struct aos_device_sched_stats aos_device_sched_stats(uint32_t device)
{
    (void)device;
    return (struct aos_device_sched_stats){0};
}

cl_int aos_elastic_kernel_set_arg(struct aos_elastic_kernel *ek, cl_uint index, size_t size, const void *value)
{
    (void)ek, (void)index, (void)size, (void)value;
    return CL_SUCCESS;
}

void aos_solo_client_gone(struct aos_session *s) { (void)s; }
cl_int aos_solo_fate_failed(const struct aos_solo_fate *f)
{
    (void)f;
    return 0;
}
void aos_solo_fate_unref(struct aos_solo_fate *f) { (void)f; }
